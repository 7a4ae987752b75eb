//! Quotas (Q1–Q3), loans (B1) and the ledger that accounts GPUs against them.
//!
//! A group's *guarantee* is what it may always use of a GPU model for a category.
//! Above it, a job runs only on GPUs *borrowed* under an approved loan from a group that
//! is not using its own guarantee. Lent GPUs go back when the lender needs them.

use serde::{Deserialize, Serialize};

use crate::model::{Allocation, Category, GroupId, Job, LoanId, ModelId, Time};

/// One quota row: group × GPU model × category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quota {
    pub group: GroupId,
    pub model: ModelId,
    pub category: Category,
    /// GPUs the group may always use.
    pub guaranteed: u32,
    /// Most GPUs the group may hold above its guarantee; `None` is unlimited.
    pub borrow_limit: Option<u32>,
    /// Most of its guarantee the group lends out; `None` lends all of it when idle.
    pub lend_limit: Option<u32>,
    /// Monthly budget in GPU-hours (Q3); `None` is unlimited.
    pub budget_gpu_h: Option<f64>,
    /// GPU-hours spent this month so far.
    pub spent_gpu_h: f64,
}

impl Quota {
    /// A row guaranteeing `guaranteed` GPUs, with no limits and no budget.
    pub fn guaranteeing(group: GroupId, model: ModelId, category: Category, guaranteed: u32) -> Quota {
        Quota {
            group,
            model,
            category,
            guaranteed,
            borrow_limit: None,
            lend_limit: None,
            budget_gpu_h: None,
            spent_gpu_h: 0.0,
        }
    }
}

/// An active loan: the lender's idle guarantee of one model may carry the borrower's jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loan {
    pub id: LoanId,
    pub lender: GroupId,
    /// `None`: a standing offer to every group (a pool-wide lending agreement).
    pub borrower: Option<GroupId>,
    pub model: ModelId,
    pub gpus: u32,
    /// When the loan ends; jobs still running on it are then reclaimed.
    pub ends_at: Option<Time>,
}

impl Loan {
    pub fn is_active(&self, now: Time) -> bool {
        self.ends_at.is_none_or(|end| now < end)
    }

    pub fn serves(&self, borrower: GroupId) -> bool {
        self.lender != borrower && self.borrower.is_none_or(|b| b == borrower)
    }
}

/// What quota accounting needs of a job: whose it is, which model and category, how
/// many GPUs. Policies that never build whole jobs (a module reading columns) use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    pub group: GroupId,
    pub model: ModelId,
    pub category: Category,
    pub gpus: u32,
}

/// Anything the ledger can account: a job, or just its [`Ask`].
pub trait Demand {
    fn ask(&self) -> Ask;
}

impl Demand for Ask {
    fn ask(&self) -> Ask {
        *self
    }
}

impl Demand for Job {
    fn ask(&self) -> Ask {
        Ask { group: self.group, model: self.model, category: self.category, gpus: self.gpus }
    }
}

/// Why a quota check refused a job; turned into a [`crate::Reason`] by the caller.
#[derive(Clone, Debug, PartialEq)]
pub enum QuotaRefusal {
    NoQuota,
    OverGuarantee { guaranteed: u32, used: u32 },
    BorrowLimit { limit: u32, borrowed: u32 },
    BadLoan { loan: LoanId },
    LoanExhausted { loan: LoanId },
    Budget { budget_gpu_h: f64, spent_gpu_h: f64, needed_gpu_h: f64 },
}

/// GPUs in use per quota row and per loan. Built from running allocations, then updated
/// as a cycle admits jobs, so admissions inside one batch see each other.
#[derive(Clone, Debug)]
pub struct Ledger {
    models: usize,
    /// Quota row per (group, model, category), if any.
    rows: Vec<Option<u32>>,
    quotas: Vec<Quota>,
    /// GPUs used against the group's own guarantee, per (group, model, category).
    own: Vec<u32>,
    /// GPUs used above guarantee (borrowed), per (group, model, category).
    borrowed: Vec<u32>,
    /// GPUs lent out, per (lender, model).
    lent: Vec<u32>,
    loans: Vec<Loan>,
    loan_used: Vec<u32>,
    /// GPU-hours committed per quota row with a budget: what running jobs may still use
    /// (GPUs × the rest of their time limit), then admissions in this cycle (Q3).
    committed_gpu_h: Vec<f64>,
}

impl Ledger {
    pub fn new(
        groups: usize,
        models: usize,
        quotas: &[Quota],
        loans: &[Loan],
        running: &[Allocation],
        now: Time,
        default_limit_s: u64,
    ) -> Ledger {
        let loans: Vec<Loan> = loans.iter().filter(|l| l.is_active(now)).cloned().collect();
        let mut ledger = Ledger::empty(groups, models, quotas, loans);
        for a in running {
            let borrowed = a.borrowed_gpus();
            let cell = ledger.cell(a.group, a.model, a.category);
            // A budget reserves each running job's remaining cost, not only the cycle that
            // admitted it: otherwise jobs admitted in later cycles overspend (Q3).
            if let Some(row) = ledger.rows[cell]
                && ledger.quotas[row as usize].budget_gpu_h.is_some()
            {
                ledger.committed_gpu_h[row as usize] += a.remaining_gpu_h(now, default_limit_s);
            }
            ledger.own[cell] += a.gpu_count().saturating_sub(borrowed);
            ledger.borrowed[cell] += borrowed;
            for b in &a.borrowed {
                // A loan that has ended stays charged to nobody: its jobs are reclaimed.
                if let Some(i) = ledger.loan_index(b.loan) {
                    ledger.loan_used[i] += b.gpus;
                    let lender = ledger.loans[i].lender;
                    ledger.lent[lender.0 as usize * models + a.model.0 as usize] += b.gpus;
                }
            }
        }
        ledger
    }

    fn empty(groups: usize, models: usize, quotas: &[Quota], loans: Vec<Loan>) -> Ledger {
        let cells = groups * models * Category::ALL.len();
        let mut rows = vec![None; cells];
        for (i, q) in quotas.iter().enumerate() {
            rows[Self::cell_of(models, q.group, q.model, q.category)] = Some(i as u32);
        }
        Ledger {
            models,
            rows,
            quotas: quotas.to_vec(),
            own: vec![0; cells],
            borrowed: vec![0; cells],
            lent: vec![0; groups * models],
            loan_used: vec![0; loans.len()],
            committed_gpu_h: vec![0.0; quotas.len()],
            loans,
        }
    }

    /// Rebuilds a ledger from what running jobs use per quota row (`(own, borrowed)`, in
    /// `quotas` order) and per active loan, as a policy module receives it.
    pub fn from_usage(
        groups: usize,
        models: usize,
        quotas: &[Quota],
        usage: &[(u32, u32)],
        loans: &[Loan],
        loan_used: &[u32],
    ) -> Ledger {
        let mut ledger = Ledger::empty(groups, models, quotas, loans.to_vec());
        for (q, &(own, borrowed)) in quotas.iter().zip(usage) {
            let cell = ledger.cell(q.group, q.model, q.category);
            ledger.own[cell] = own;
            ledger.borrowed[cell] = borrowed;
        }
        for (i, &used) in loan_used.iter().enumerate().take(ledger.loans.len()) {
            ledger.loan_used[i] = used;
            let l = &ledger.loans[i];
            ledger.lent[l.lender.0 as usize * models + l.model.0 as usize] += used;
        }
        ledger
    }

    /// What running jobs use per quota row, `(own, borrowed)`, in the rows' order.
    pub fn row_usage(&self) -> Vec<(u32, u32)> {
        self.quotas
            .iter()
            .map(|q| {
                let cell = self.cell(q.group, q.model, q.category);
                (self.own[cell], self.borrowed[cell])
            })
            .collect()
    }

    /// GPUs borrowed on each active loan, in [`Ledger::loans`] order.
    pub fn loan_usage(&self) -> &[u32] {
        &self.loan_used
    }

    fn cell_of(models: usize, g: GroupId, m: ModelId, c: Category) -> usize {
        (g.0 as usize * models + m.0 as usize) * Category::ALL.len() + c.index()
    }

    fn cell(&self, g: GroupId, m: ModelId, c: Category) -> usize {
        Self::cell_of(self.models, g, m, c)
    }

    pub fn quota(&self, g: GroupId, m: ModelId, c: Category) -> Option<&Quota> {
        let row = *self.rows.get(self.cell(g, m, c))?;
        row.map(|i| &self.quotas[i as usize])
    }

    pub fn loans(&self) -> &[Loan] {
        &self.loans
    }

    pub fn loan_index(&self, id: LoanId) -> Option<usize> {
        self.loans.iter().position(|l| l.id == id)
    }

    /// GPUs the job's group may still use of its own guarantee.
    pub fn own_headroom(&self, job: &impl Demand) -> Option<u32> {
        let job = job.ask();
        let q = self.quota(job.group, job.model, job.category)?;
        let used = self.own[self.cell(job.group, job.model, job.category)];
        Some(q.guaranteed.saturating_sub(used))
    }

    /// GPUs the job's group uses of its own guarantee (running, and admitted this cycle).
    pub fn own_used(&self, job: &impl Demand) -> u32 {
        let job = job.ask();
        self.own[self.cell(job.group, job.model, job.category)]
    }

    /// GPUs the job's group holds above its guarantee (running, and admitted this cycle).
    pub fn borrowed_used(&self, job: &impl Demand) -> u32 {
        let job = job.ask();
        self.borrowed[self.cell(job.group, job.model, job.category)]
    }

    /// GPUs of the row's own guarantee its running jobs hold (and admissions this cycle).
    pub fn own_of_row(&self, row: usize) -> u32 {
        let q = &self.quotas[row];
        self.own[self.cell(q.group, q.model, q.category)]
    }

    /// A row's budget and what is spent or committed of it, if it has one.
    pub fn budget_of_row(&self, row: usize) -> Option<(f64, f64)> {
        let q = &self.quotas[row];
        q.budget_gpu_h.map(|b| (b, q.spent_gpu_h + self.committed_gpu_h[row]))
    }

    /// The quota rows, in the snapshot's order.
    pub fn quota_rows(&self) -> &[Quota] {
        &self.quotas
    }

    /// The job's monthly budget and what is spent or committed of it, if it has one.
    pub fn budget(&self, job: &impl Demand) -> Option<(f64, f64)> {
        let job = job.ask();
        let row = self.rows[self.cell(job.group, job.model, job.category)]? as usize;
        let q = &self.quotas[row];
        q.budget_gpu_h.map(|b| (b, q.spent_gpu_h + self.committed_gpu_h[row]))
    }

    /// GPUs a lender can lend of a model right now: its idle guarantee, within its limit.
    pub fn lendable(&self, lender: GroupId, model: ModelId) -> u32 {
        let (mut guaranteed, mut used, mut cap) = (0u32, 0u32, 0u32);
        for c in Category::ALL {
            if let Some(q) = self.quota(lender, model, c) {
                guaranteed += q.guaranteed;
                cap += q.lend_limit.unwrap_or(q.guaranteed).min(q.guaranteed);
                used += self.own[self.cell(lender, model, c)];
            }
        }
        let lent = self.lent[lender.0 as usize * self.models + model.0 as usize];
        let idle = guaranteed.saturating_sub(used).saturating_sub(lent);
        idle.min(cap.saturating_sub(lent))
    }

    /// What is left of a loan for a borrower: its remaining size, capped by the lender's
    /// lendable GPUs.
    pub fn loan_available(&self, loan_index: usize) -> u32 {
        let loan = &self.loans[loan_index];
        let left = loan.gpus.saturating_sub(self.loan_used[loan_index]);
        left.min(self.lendable(loan.lender, loan.model))
    }

    /// GPUs the job's group may still borrow for this quota row.
    pub fn borrow_headroom(&self, job: &impl Demand) -> u32 {
        let job = job.ask();
        let Some(q) = self.quota(job.group, job.model, job.category) else { return 0 };
        let used = self.borrowed[self.cell(job.group, job.model, job.category)];
        q.borrow_limit.map_or(u32::MAX, |l| l.saturating_sub(used))
    }

    /// Checks that `job` may run with `borrowed` GPUs on loans and the rest on its own
    /// guarantee, and if so records it. Nothing is recorded on refusal.
    /// `expected_gpu_h` is what the run may cost (GPUs × time limit), held against the
    /// monthly budget so a group stops before it overspends (Q3).
    pub fn admit(
        &mut self,
        job: &impl Demand,
        borrowed: &[crate::model::Borrow],
        expected_gpu_h: f64,
    ) -> Result<(), QuotaRefusal> {
        let job = job.ask();
        let cell = self.cell(job.group, job.model, job.category);
        let row = self.rows[cell].ok_or(QuotaRefusal::NoQuota)? as usize;
        let q = &self.quotas[row];
        let (guaranteed, borrow_limit) = (q.guaranteed, q.borrow_limit);
        if let Some(budget) = q.budget_gpu_h {
            let spent = q.spent_gpu_h + self.committed_gpu_h[row];
            if spent + expected_gpu_h > budget {
                return Err(QuotaRefusal::Budget {
                    budget_gpu_h: budget,
                    spent_gpu_h: spent,
                    needed_gpu_h: expected_gpu_h,
                });
            }
        }
        let on_loan: u32 = borrowed.iter().map(|b| b.gpus).sum();
        let own = job.gpus.saturating_sub(on_loan);
        if self.own[cell] + own > guaranteed {
            return Err(QuotaRefusal::OverGuarantee { guaranteed, used: self.own[cell] });
        }
        if let Some(limit) = borrow_limit
            && self.borrowed[cell] + on_loan > limit
        {
            return Err(QuotaRefusal::BorrowLimit { limit, borrowed: self.borrowed[cell] });
        }
        let mut indices = Vec::with_capacity(borrowed.len());
        for b in borrowed {
            let i = self.loan_index(b.loan).ok_or(QuotaRefusal::BadLoan { loan: b.loan })?;
            let loan = &self.loans[i];
            if !loan.serves(job.group) || loan.model != job.model {
                return Err(QuotaRefusal::BadLoan { loan: b.loan });
            }
            indices.push(i);
        }
        // Check every loan before recording any, so a refusal leaves the ledger untouched.
        let mut scratch = LoanScratch::default();
        for (b, &i) in borrowed.iter().zip(&indices) {
            let available = scratch.available(self, i);
            if b.gpus > available {
                return Err(QuotaRefusal::LoanExhausted { loan: b.loan });
            }
            scratch.charge(self, i, b.gpus);
        }
        self.own[cell] += own;
        self.borrowed[cell] += on_loan;
        self.committed_gpu_h[row] += expected_gpu_h;
        for (b, &i) in borrowed.iter().zip(&indices) {
            self.loan_used[i] += b.gpus;
            let l = &self.loans[i];
            self.lent[l.lender.0 as usize * self.models + l.model.0 as usize] += b.gpus;
        }
        Ok(())
    }
}

/// Loan charges of one admission, checked before they are recorded (a job may borrow
/// from two loans of the same lender).
#[derive(Default)]
struct LoanScratch {
    extra_loan: Vec<(usize, u32)>,
    extra_lent: Vec<(GroupId, u32)>,
}

impl LoanScratch {
    fn available(&self, ledger: &Ledger, i: usize) -> u32 {
        let loan = &ledger.loans[i];
        let on_loan: u32 = self.extra_loan.iter().filter(|(j, _)| *j == i).map(|(_, n)| n).sum();
        let on_lender: u32 = self.extra_lent.iter().filter(|(g, _)| *g == loan.lender).map(|(_, n)| n).sum();
        let left = loan.gpus.saturating_sub(ledger.loan_used[i] + on_loan);
        left.min(ledger.lendable(loan.lender, loan.model).saturating_sub(on_lender))
    }

    fn charge(&mut self, ledger: &Ledger, i: usize, gpus: u32) {
        self.extra_loan.push((i, gpus));
        self.extra_lent.push((ledger.loans[i].lender, gpus));
    }
}
