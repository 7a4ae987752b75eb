// The web app in a real browser (the machine's Chromium, headless), against a real
// `tidepool serve` on loopback with its demo organisation. Each flow checks what a person
// sees and, where a role must not act, that the API refuses it too. MISSION Q6, T1, B1,
// B2, O1, O2, V1, and the Reports page: A5, O4, V4, Q3, Q5, T3. One flow signs in over
// HTTPS, to a second server with a certificate from a CA made here (openssl).
//
// TIDEPOOL_WEB_FLOWS picks the flows: `all` (the default), `base` (those that need no
// report, usage, review or settings routes: a server without them still passes) or
// `reports` (only those that do). Screenshots of the Reports page go to
// tests/web/screenshots/ (TIDEPOOL_WEB_SCREENSHOTS elsewhere), for a person to look at.
import { chromium } from 'playwright-core';
import { execFileSync, spawn } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import https from 'node:https';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const bin = process.env.TIDEPOOL_BIN;
const policyDir = process.env.TIDEPOOL_POLICY_DIR;
assert.ok(bin && policyDir, 'set TIDEPOOL_BIN and TIDEPOOL_POLICY_DIR (tests/run.sh does)');
const which = process.env.TIDEPOOL_WEB_FLOWS || 'all';
assert.ok(['all', 'base', 'reports'].includes(which), 'TIDEPOOL_WEB_FLOWS is all, base or reports');
const reportsToo = which !== 'base';
const shots = process.env.TIDEPOOL_WEB_SCREENSHOTS || join(dirname(fileURLToPath(import.meta.url)), 'screenshots');

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'tidepool-web-'));
const server = spawn(bin, ['serve', '--data-dir', dir, '--listen', `127.0.0.1:${port}`,
  '--dispatch-interval-s', '1', '--min-runtime-s', '0'],
  { env: { ...process.env, TIDEPOOL_ADMIN_PASSWORD: 'admin-pw' }, stdio: 'ignore' });
let browser;
const stop = () => { server.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); };
process.on('exit', stop);

async function until(what, check, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function api(method, path, token, body) {
  const r = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}
const token = async (username, password) => (await api('POST', '/api/auth/login', null, { username, password })).body.access_token;

async function signIn(username, password) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`page error (${username}): ${e.message}`));
  await page.goto(base + '/');
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('header nav button');
  return page;
}
const go = (page, title) => page.click(`nav button[data-page="${title}"]`);
// By their data-page: a button's text may carry a badge (the Inbox's unread count).
const pages = async (page) => page.$$eval('nav button', (bs) => bs.map((b) => b.dataset.page));

let failed = 0;
// `needs: 'reports'`: the flow reads the report, usage, review or settings routes.
async function flow(name, body, { needs } = {}) {
  if ((needs === 'reports') !== (which === 'reports') && which !== 'all') {
    console.log(`skip - ${name} (TIDEPOOL_WEB_FLOWS=${which})`);
    return;
  }
  try { await body(); console.log(`ok - ${name}`); } catch (e) { failed += 1; console.log(`not ok - ${name}\n  ${e.stack}`); }
}

try {
  await until('the server', async () => (await fetch(base + '/api/openapi.json')).ok, 60000);
  const admin = await token('admin', 'admin-pw');
  assert.equal((await api('POST', '/api/users', admin, { username: 'admin2', password: 'admin2-pw', role: 'admin' })).status, 201);
  browser = await chromium.launch({
    executablePath: process.env.TIDEPOOL_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
  });

  await flow('each role signs in and sees its pages', async () => {
    const a = await signIn('admin', 'admin-pw');
    assert.ok((await pages(a)).includes('Policies') && (await pages(a)).includes('Reports'));
    const m = await signIn('vision-lead', 'demo-password');
    assert.ok((await pages(m)).includes('Reports') && !(await pages(m)).includes('Policies'));
    const d = await signIn('vision-dev', 'demo-password');
    const p = await pages(d);
    assert.ok(p.includes('Queue') && !p.includes('Policies') && p.includes('Reports'), p.join());
    await go(m, 'Reports');
    await m.waitForSelector('#reports');
  });

  // HTTPS (issue 14): a second server with a certificate from a CA made here; Chromium
  // trusts that one certificate by its key's pin (not every certificate error).
  await flow('a member signs in over HTTPS and loads a page', async () => {
    const tls = mkdtempSync(join(tmpdir(), 'tidepool-web-tls-'));
    const ssl = (...args) => execFileSync('openssl', args, { cwd: tls, stdio: 'ignore' });
    ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
      '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-subj', '/CN=Tidepool web test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem',
      '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    writeFileSync(join(tls, 'ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial',
      '-days', '2', '-extfile', 'ext', '-out', 'cert.pem');
    const tlsPort = await new Promise((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
    });
    const data = join(tls, 'data');
    const secure = spawn(bin, ['serve', '--data-dir', data, '--listen', `127.0.0.1:${tlsPort}`,
      '--tls-cert', join(tls, 'cert.pem'), '--tls-key', join(tls, 'key.pem')],
      { env: { ...process.env, TIDEPOOL_ADMIN_PASSWORD: 'admin-pw' }, stdio: 'ignore' });
    let tlsBrowser;
    try {
      // Up once /healthz answers over TLS to a client trusting the test CA alone.
      const ca = readFileSync(join(tls, 'ca.pem'));
      const healthy = () => new Promise((resolve) => {
        https.get(`https://127.0.0.1:${tlsPort}/healthz`, { ca }, (r) => { r.resume(); resolve(r.statusCode === 200); })
          .on('error', () => resolve(false));
      });
      await until('the HTTPS server', healthy, 60000);
      const key = new X509Certificate(readFileSync(join(tls, 'cert.pem'))).publicKey.export({ type: 'spki', format: 'der' });
      const pin = createHash('sha256').update(key).digest('base64');
      tlsBrowser = await chromium.launch({
        executablePath: process.env.TIDEPOOL_CHROMIUM || '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
          '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
          `--ignore-certificate-errors-spki-list=${pin}`],
      });
      const page = await (await tlsBrowser.newContext()).newPage();
      page.on('pageerror', (e) => console.log(`page error (https): ${e.message}`));
      await page.goto(`https://127.0.0.1:${tlsPort}/`);
      assert.equal(await page.evaluate(() => location.protocol), 'https:');
      await page.fill('input[name=username]', 'vision-dev');
      await page.fill('input[name=password]', 'demo-password');
      await page.click('#login button[type=submit]');
      await page.waitForSelector('header nav button');
      await go(page, 'Queue');
      // The templates come from the API, over the same HTTPS connection's origin.
      await page.waitForSelector('button[data-template="resnet50-imagenet"]');
    } finally {
      if (tlsBrowser) await tlsBrowser.close();
      secure.kill('SIGKILL');
      rmSync(tls, { recursive: true, force: true });
    }
  });

  let job;
  await flow('a member launches a template in one click, sees it run, and on the global view', async () => {
    const d = await signIn('vision-dev', 'demo-password');
    await go(d, 'Queue');
    await d.click('button[data-template="resnet50-imagenet"]');
    const row = await d.waitForSelector('#my-jobs tr[data-state="running"]');
    job = await row.getAttribute('data-job');
    await go(d, 'Cluster');
    await d.waitForSelector(`#global-view .gpu[data-job="${job}"]`);
    assert.equal(await d.locator(`#global-view .gpu[data-job="${job}"]`).count(), 8, 'the job holds its 8 GPUs');
  });

  await flow('a member sees no approve button, and the API refuses the approval anyway', async () => {
    const s = await signIn('speech-dev', 'demo-password');
    await go(s, 'Borrowing');
    const row = await s.waitForSelector('#loans tr[data-state="requested"]');
    const loan = await row.getAttribute('data-loan');
    assert.equal(await s.locator('#loans button.approve').count(), 0);
    const refused = await api('POST', `/api/loans/${loan}/approve`, await token('speech-dev', 'demo-password'), { note: 'me' });
    assert.equal(refused.status, 403);
  });

  await flow('a loan request, the lender manager approves, the borrower job runs', async () => {
    const d = await signIn('vision-dev', 'demo-password');
    await go(d, 'Queue');
    await d.click('button[data-template="resnet50-imagenet"]');
    await d.click('button[data-template="resnet50-imagenet"]');
    // vision's 16 guaranteed GPUs are taken: the third 8-GPU job waits.
    await d.waitForSelector('#my-jobs tr[data-state="pending"]');
    await go(d, 'Borrowing');
    await d.selectOption('#ask-loan select[name=lender]', 'speech');
    await d.fill('#ask-loan input[placeholder="GPUs"]', '8');
    await d.fill('#ask-loan input[placeholder="why"]', 'paper deadline');
    await d.click('#ask-loan button[type=submit]');
    await d.waitForSelector('#loans tr[data-state="requested"]:has-text("speech → vision")');
    const l = await signIn('speech-lead', 'demo-password');
    await go(l, 'Borrowing');
    await l.click('#loans tr:has-text("speech → vision") button.approve');
    await l.waitForSelector('#loans tr[data-state="active"]:has-text("speech → vision")');
    await go(d, 'Queue');
    // Three running (the launches before this flow's included), none waiting.
    await until('the waiting job to run', async () => (await d.locator('#my-jobs tr[data-state="running"]').count()) === 3);
    assert.equal(await d.locator('#my-jobs tr[data-state="pending"]').count(), 0);
  });

  await flow('an admin uploads a policy module and a second admin approves its promotion', async () => {
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Policies');
    await a.setInputFiles('#upload input[type=file]', join(policyDir, 'fifo.wasm'));
    await a.fill('#upload input[placeholder="what changed"]', 'first come, first served for a trial');
    await a.click('#upload button[type=submit]');
    const report = await a.waitForSelector('#report:has-text("validated")');
    const sha = (await report.textContent()).match(/[0-9a-f]{64}/)[0];
    await a.click(`tr[data-sha="${sha}"] button.promote`);
    await a.waitForSelector(`tr[data-sha="${sha}"]:has-text("promotion asked by admin")`);
    assert.equal(await a.locator(`tr[data-sha="${sha}"] button.approve`).count(), 0, 'not by the one who asked');
    const b = await signIn('admin2', 'admin2-pw');
    await go(b, 'Policies');
    await b.click(`tr[data-sha="${sha}"] button.approve`);
    await b.waitForSelector(`section[data-kind="priority"] h2:has-text("${sha.slice(0, 12)} decides")`);
    const list = await api('GET', '/api/policies', admin);
    assert.equal(list.body.kinds.priority.active, sha);
  });

  await flow('the admin approving a promotion sees the replay of the last 30 days beside the button (O1, A3)', async () => {
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Policies');
    await a.setInputFiles('#upload input[type=file]', join(policyDir, 'las2d.wasm'));
    await a.fill('#upload input[placeholder="what changed"]', 'least attained service, replayed first');
    await a.click('#upload button[type=submit]');
    const report = await a.waitForSelector('#report:has-text("validated")');
    const sha = (await report.textContent()).match(/[0-9a-f]{64}/)[0];
    const row = `tr[data-sha="${sha}"]`;
    await a.waitForSelector(`${row}:has-text("Not replayed yet")`);
    await a.click(`${row} button.replay`);
    await a.waitForSelector(`${row} table.replay-comparison`);
    await a.click(`${row} button.promote`);
    await a.waitForSelector(`${row}:has-text("promotion asked by admin")`);
    const b = await signIn('admin2', 'admin2-pw');
    await go(b, 'Policies');
    await b.waitForSelector(`${row} button.approve`);
    const table = b.locator(`${row} table.replay-comparison`);
    await table.waitFor();
    const header = await table.locator('tr').first().textContent();
    assert.match(header, /what happened/);
    assert.match(header, new RegExp(`candidate: priority ${sha.slice(0, 12)}`));
    assert.match(await table.textContent(), /avg JCT/);
    assert.match(await b.locator(`${row} .replay-caption`).textContent(), /replayed by admin/);
    const stored = await api('GET', `/api/policies/${sha}/replays`, await token('admin2', 'admin2-pw'));
    assert.equal(stored.body.replays.length, 1, 'stored with the version');
  });

  await flow('a dry run says what would happen, and submits nothing', async () => {
    const r = await signIn('robotics-dev', 'demo-password');
    await go(r, 'Queue');
    await r.fill('#submit-spec input[placeholder="name"]', 'rehearsal');
    await r.fill('#submit-spec input[placeholder="command"]', 'python try.py');
    await r.fill('#submit-spec input[placeholder="GPUs"]', '4');
    await r.click('#dry-run-button');
    await r.waitForSelector('#dry-run:has-text("Would start now on")');
    const mine = await api('GET', '/api/jobs?mine=true', await token('robotics-dev', 'demo-password'));
    // The demo's history holds finished jobs of this user: none of them is this one.
    assert.equal(mine.body.jobs.filter((j) => j.name === 'rehearsal').length, 0, 'nothing was submitted');
  });

  await flow('an expired session brings sign-in over the page and keeps what was typed', async () => {
    const d = await signIn('vision-dev', 'demo-password');
    await go(d, 'Queue');
    await d.fill('#submit-spec input[placeholder="name"]', 'half-typed experiment');
    // The server refuses the token from now on, as it does once a token expires.
    await d.route('**/api/**', (route) => route.fulfill({
      status: 401, contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'unauthorized', message: 'the token has expired: sign in again' } }),
    }));
    // The queue's own refresh may meet the 401 before the click does, and then the sign-in
    // already covers the button: the click is forced (it lands on the overlay, harmless).
    await d.click('#dry-run-button', { force: true });
    await d.waitForSelector('.overlay #login');
    await d.unroute('**/api/**');
    await d.fill('.overlay input[name=password]', 'demo-password');
    await d.click('.overlay #login button[type=submit]');
    await d.waitForSelector('.overlay', { state: 'detached' });
    assert.equal(await d.inputValue('#submit-spec input[placeholder="name"]'), 'half-typed experiment');
  });

  await flow('a member opens a job: its receipt, its output so far, and cancel', async () => {
    // Robotics has idle guarantee left (vision's is in use by the flows above).
    const dev = await token('robotics-dev', 'demo-password');
    const made = await api('POST', '/api/jobs', dev, { name: 'inspect-me', command: 'python probe.py', gpus: 1 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    await until('the job to run', async () => (await api('GET', `/api/jobs/${id}`, dev)).body.state === 'running');
    const d = await signIn('robotics-dev', 'demo-password');
    await go(d, 'Queue');
    await d.click(`#my-jobs tr[data-job="${id}"] a`);
    await d.waitForSelector('#job-summary[data-state="running"]');
    const placed = await d.waitForSelector('#job-receipt tr[data-kind="placed"]');
    assert.match(await placed.textContent(), /priority=/, 'the receipt names the policy versions (D3)');
    await d.waitForSelector('#job:has-text("No output yet.")');
    await d.click('#job button.cancel');
    await d.waitForSelector('#job-summary[data-state="cancelled"]');
    assert.equal((await api('GET', `/api/jobs/${id}`, dev)).body.state, 'cancelled');
  });

  await flow("a manager sees the group's running and waiting jobs", async () => {
    const dev = await token('vision-dev', 'demo-password');
    const made = await api('POST', '/api/jobs', dev, { name: 'watched-by-lead', command: 'train', gpus: 64 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Queue');
    await m.waitForSelector(`#group-jobs tr[data-job="${made.body.id}"][data-state="pending"]`);
    const member = await signIn('vision-dev', 'demo-password');
    await go(member, 'Queue');
    await member.waitForSelector('#my-jobs');
    assert.equal(await member.locator('#group-jobs').count(), 0, 'members see their own jobs, not the group view');
    await api('POST', `/api/jobs/${made.body.id}/cancel`, dev);
  });

  await flow('a waiting job shows why it waits, span by span, as a timeline (D2)', async () => {
    const dev = await token('vision-dev', 'demo-password');
    // 64 GPUs: more than the demo pool has, so it waits as "infeasible".
    const made = await api('POST', '/api/jobs', dev, { name: 'too-big-to-run', command: 'train', gpus: 64 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    await until('its first wait recorded', async () => (await api('GET', `/api/jobs/${id}`, dev)).body.waits.length > 0);
    const d = await signIn('vision-dev', 'demo-password');
    await go(d, 'Queue');
    await d.click(`#my-jobs tr[data-job="${id}"] a`);
    const row = await d.waitForSelector('#job-waits tr[data-kind="infeasible"]');
    assert.match(await row.textContent(), /still waiting/);
    assert.match(await row.textContent(), /asks for more than the pool has/);
    assert.equal(await d.locator('#job-waits-chart rect.wait[data-kind="infeasible"]').count(), 1);
    await api('POST', `/api/jobs/${id}/cancel`, dev);
    const r = (await api('GET', `/api/jobs/${id}`, dev)).body;
    assert.equal(r.waits.length, 1);
    assert.ok(r.waits[0].until !== null, 'the span closes when the job is cancelled');
  });

  await flow('an alert reaches the inbox with an unread badge; a recipient acknowledges it, another group never sees it (O2)', async () => {
    const lead = await token('vision-lead', 'demo-password');
    const expires_at = Math.floor(Date.now() / 1000) + 2 * 86400;
    assert.equal((await api('POST', '/api/projects', lead, { name: 'inbox-flow', class: 'critical', expires_at })).status, 201);
    const alert = await until('the lapsing grant\'s alert', async () =>
      (await api('GET', '/api/alerts', lead)).body.alerts.find((a) => a.subject === 'project inbox-flow'));
    const unread = async (page) => ((await page.locator('#unread-badge').count())
      ? Number(await page.getAttribute('#unread-badge', 'data-unread')) : 0);
    const m = await signIn('vision-lead', 'demo-password');
    const before = await until('the unread badge', async () => { const n = await unread(m); return n >= 1 && n; });
    await go(m, 'Inbox');
    await m.click(`tr[data-alert="${alert.id}"] button.ack`);
    await m.waitForSelector(`tr[data-alert="${alert.id}"] td.state:has-text("acknowledged")`);
    const after = (await api('GET', '/api/alerts', lead)).body.alerts.find((a) => a.id === alert.id);
    assert.equal(after.acknowledged_by, 'vision-lead');
    await until('the badge to count one fewer', async () => (await unread(m)) === before - 1);
    const s = await signIn('speech-dev', 'demo-password');
    await go(s, 'Inbox');
    await s.waitForSelector('#inbox');
    await until('the inbox to load', async () => (await s.locator('main p.muted:has-text("Loading…")').count()) === 0);
    assert.equal(await s.locator(`tr[data-alert="${alert.id}"]`).count(), 0, "another group's member");
    assert.equal((await api('POST', `/api/alerts/${alert.id}/ack`, await token('speech-dev', 'demo-password'))).status, 404);
  });

  await flow("a manager renews the group's project grant before it lapses (P2)", async () => {
    const lead = await token('vision-lead', 'demo-password');
    const before = (await api('GET', '/api/projects', lead)).body.projects.find((p) => p.name === 'cvpr-deadline');
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Projects');
    await m.fill('#projects input[size="4"]', '120');
    await m.click('tr[data-project="cvpr-deadline"] button.renew');
    await until('the new expiry', async () => {
      const p = (await api('GET', '/api/projects', lead)).body.projects.find((x) => x.name === 'cvpr-deadline');
      return p.expires_at > before.expires_at + 80 * 86400;
    });
    const s = await signIn('speech-lead', 'demo-password');
    await go(s, 'Projects');
    await s.waitForSelector('tr[data-project="cvpr-deadline"]');
    assert.equal(await s.locator('tr[data-project="cvpr-deadline"] button.renew').count(), 0, "not another group's manager");
  });

  await flow('a template is created with every field it freezes (T1)', async () => {
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Templates');
    const form = '#new-template';
    await m.fill(`${form} input[placeholder="name"]`, 'vit-finetune');
    await m.fill(`${form} input[placeholder="GPUs"]`, '4');
    await m.selectOption(`${form} select >> nth=0`, 'inference');
    await m.selectOption(`${form} select >> nth=1`, 'batch');
    await m.selectOption(`${form} select >> nth=2`, 'same-node');
    await m.fill(`${form} input[placeholder="time limit (hours)"]`, '2');
    await m.fill(`${form} input[placeholder="command"]`, 'python finetune.py');
    await m.fill(`${form} textarea`, 'WANDB_MODE=offline\nHF_HOME=/data/hf');
    await m.click(`${form} button[type=submit]`);
    const row = await m.waitForSelector('#templates tr[data-template="vit-finetune"]');
    assert.match(await row.textContent(), /same-node, batch inference, 2 h/);
    const lead = await token('vision-lead', 'demo-password');
    const t = (await api('GET', '/api/templates?limit=500', lead)).body.templates.find((x) => x.name === 'vit-finetune');
    assert.deepEqual([t.gpus, t.category, t.class, t.topology, t.time_limit_s], [4, 'inference', 'batch', 'same-node', 7200]);
    assert.deepEqual(t.env, { WANDB_MODE: 'offline', HF_HOME: '/data/hf' });
  });

  // Every page reads the server's answers as the API's types (issue 11): a real server's
  // answers load on every page of every role (V1, Q1, A2, D2 among them), with no
  // decoding error anywhere.
  await flow("every page reads a real server's answers as the API's types", async () => {
    for (const [user, password] of [['admin', 'admin-pw'], ['vision-lead', 'demo-password'], ['vision-dev', 'demo-password']]) {
      const p = await signIn(user, password);
      for (const title of await pages(p)) {
        if (title === 'Reports' && !reportsToo) continue; // its flows below
        await go(p, title);
        await p.waitForSelector(`nav button.on[data-page="${title}"]`);
        await until(`${title} to load for ${user}`, async () => (await p.locator('main p.muted:has-text("Loading…")').count()) === 0);
        const errors = await p.locator('main .error').allTextContents();
        assert.deepEqual(errors.filter((e) => e.trim()), [], `${title} for ${user}`);
      }
    }
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Quotas');
    await a.waitForSelector('#quotas tr >> nth=1'); // the demo quotas, under the header
    await go(a, 'Records');
    await a.waitForSelector('#events tr');
    await a.fill('input[placeholder="job id"]', job);
    await a.click('form:has(input[placeholder="job id"]) button[type=submit]');
    await a.waitForSelector(`#receipt tr:has-text("placed")`);
  });

  await flow('a field the server renamed is an error on the page, never a blank', async () => {
    const a = await signIn('admin', 'admin-pw');
    const real = await api('GET', '/api/quotas', admin);
    const drifted = real.body.quotas.map(({ guaranteed, ...rest }) => ({ ...rest, guaranteed_gpus: guaranteed }));
    await a.route('**/api/quotas', (route) => route.fulfill({
      status: 200, contentType: 'application/json', body: JSON.stringify({ quotas: drifted }),
    }));
    await go(a, 'Quotas');
    await a.waitForSelector('main .error:has-text("unexpected answer from /api/quotas")');
    assert.equal(await a.locator('#quotas').count(), 0, 'no table of blanks');
  });

  // The Reports page (A5, O4, V4, Q3): the week shown is the report the API answers for
  // the same week and group, drawn and tabled; the CSV is the table on screen.
  const shot = async (page, name) => {
    mkdirSync(shots, { recursive: true });
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`  screenshot: ${path}`);
  };
  const shown = async (page) => page.textContent('#week-shown');
  // The ISO week of now (or of `daysBack` days ago), in UTC.
  const thisWeek = (daysBack = 0) => {
    const now = new Date(Date.now() - daysBack * 86400000);
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7) + 3); // the week's Thursday
    const week = 1 + Math.floor((d - Date.UTC(d.getUTCFullYear(), 0, 1)) / (7 * 86400000));
    return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
  };
  const reportQuery = (week, group) => `/api/reports/weekly?week=${week}${group ? `&group=${group}` : ''}`;
  // Steps back from the current week to the newest one with GPU-hours (the demo's history
  // or this run's jobs), at most five weeks; answers the API's report of that week.
  async function newestWithUse(page, who, group) {
    for (let i = 0; ; i += 1) {
      const week = await shown(page);
      await page.waitForSelector(`.report-head[data-week="${week}"], #report-error`);
      const r = await api('GET', reportQuery(week, group), who);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (r.body.totals.gpu_hours > 0 || i === 4) return r.body;
      await page.click('#week-previous');
      await until('the previous week', async () => (await shown(page)) !== week);
    }
  }

  await flow("a manager reads their group's week: figures, charts, tables", async () => {
    const lead = await token('vision-lead', 'demo-password');
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Reports');
    assert.equal(await m.locator('#report-group').count(), 0, 'no group picker for a manager');
    const r = await newestWithUse(m, lead, 'vision');
    assert.ok(r.totals.gpu_hours > 0, 'a week with use within five weeks');
    const head = m.locator(`.report-head[data-week="${r.week}"][data-group="vision"]`);
    await head.waitFor();
    assert.equal(await m.locator('#frozen').count(), r.frozen_at ? 1 : 0, 'the frozen badge when frozen');
    // One bar per day and category with GPU-hours, each the API's figure.
    const bars = r.days.flatMap((d) => ['training', 'inference', 'pretraining'].filter((c) => d[c] > 0).map((c) => [d.date, c, d[c]]));
    assert.equal(await m.locator('#chart-days rect.bar').count(), bars.length);
    for (const [date, c, v] of bars) {
      const drawn = await m.getAttribute(`#chart-days rect[data-date="${date}"][data-category="${c}"]`, 'data-value');
      assert.ok(Math.abs(Number(drawn) - v) <= 0.005 + 1e-9, `${date} ${c}: drawn ${drawn}, reported ${v}`);
    }
    assert.equal(await m.locator('#chart-waits rect.bar').count(), 2 * r.waits.length);
    assert.equal(await m.locator('#chart-budgets g.budget').count(), r.budgets.length);
    // The heatmap: the week's 168 hours, from /api/usage.
    await m.waitForSelector('#chart-heatmap rect.cell');
    assert.equal(await m.locator('#chart-heatmap rect.cell').count(), 168);
    const held = await m.$$eval('#chart-heatmap rect.cell', (cs) => cs.reduce((a, c) => a + Number(c.dataset.gpus), 0));
    assert.ok(held > 0, 'the heatmap shows GPUs held');
    assert.equal(await m.locator('#report-usage tr').count(), r.usage.length + 1);
    await shot(m, 'reports-manager');
    await m.emulateMedia({ media: 'print' });
    assert.equal(await m.locator('nav').isVisible(), false, 'printed without navigation');
    await shot(m, 'reports-manager-print');
    await m.emulateMedia({ media: 'screen' });
  }, { needs: 'reports' });

  await flow("a manager cannot read another group's report: the API answers 403, the page says why", async () => {
    const lead = await token('vision-lead', 'demo-password');
    assert.equal((await api('GET', reportQuery(thisWeek(), 'vision'), lead)).status, 200);
    const refused = await api('GET', reportQuery(thisWeek(), 'speech'), lead);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    // The page asks for speech's report instead of vision's: what the server says shows.
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Cluster');
    await m.route('**/api/reports/weekly?*', (route) => route.continue({ url: route.request().url().replace('group=vision', 'group=speech') }));
    await go(m, 'Reports');
    const error = await m.waitForSelector('#report-error');
    assert.match(await error.textContent(), /cannot be shown/);
    assert.ok((await error.textContent()).includes(refused.body.error.message), await error.textContent());
    assert.equal(await m.locator('.report-head').count(), 0, 'nothing of the report');
    await shot(m, 'reports-manager-refused');
  }, { needs: 'reports' });

  await flow('a manager downloads a table as CSV: the rows on screen', async () => {
    const lead = await token('vision-lead', 'demo-password');
    const m = await signIn('vision-lead', 'demo-password');
    await go(m, 'Reports');
    const r = await newestWithUse(m, lead, 'vision');
    await m.waitForSelector(`.report-head[data-week="${r.week}"]`);
    const [download] = await Promise.all([m.waitForEvent('download'), m.click('button[data-csv="usage"]')]);
    assert.equal(download.suggestedFilename(), `tidepool-vision-${r.week}-usage.csv`);
    const text = readFileSync(await download.path(), 'utf8');
    const lines = text.split('\r\n');
    assert.equal(lines[0], `model,category,GPU-hours,busy GPU-hours,idle GPU-hours,price per GPU-hour,cost (${r.currency})`);
    assert.equal(lines.length, r.usage.length + 2, 'a line per row, and the last CRLF');
    r.usage.forEach((u, i) => {
      const cells = lines[i + 1].split(',');
      assert.deepEqual(cells.slice(0, 2), [u.model, u.category]);
      assert.ok(Math.abs(Number(cells[2]) - u.gpu_hours) <= 0.05, `${cells[2]} against ${u.gpu_hours}`);
      assert.ok(Math.abs(Number(cells[6]) - u.cost) <= 0.005, `${cells[6]} against ${u.cost}`);
    });
    const shownRows = await m.$$eval('#report-usage tr', (rows) => rows.map((tr) => [...tr.children].map((c) => c.textContent).join(',')));
    assert.deepEqual(shownRows, lines.slice(0, -1), 'the download is the table on screen');
  }, { needs: 'reports' });

  await flow("an admin reads the organisation's week and the reviews", async () => {
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Reports');
    const r = await newestWithUse(a, admin, null);
    await a.waitForSelector(`.report-head[data-week="${r.week}"][data-group=""]`);
    assert.match(await a.textContent('.report-head h2'), /the organisation/);
    const groups = (await api('GET', '/api/groups?limit=500', admin)).body.groups.map((g) => g.name);
    const options = await a.$$eval('#report-group option', (os) => os.map((o) => o.value));
    assert.deepEqual(options, ['', ...groups], 'the organisation and every group');
    const quotas = (await api('GET', '/api/reviews/quotas', admin)).body;
    await a.waitForSelector('#reviews [data-table="quotas"]');
    assert.equal(await a.locator('#review-quotas tr').count(), quotas.lines.length ? quotas.lines.length + 1 : 0);
    await a.waitForSelector('#reviews [data-table="idle"]');
    await a.waitForSelector('#settings-form input[name=time_zone]');
    assert.equal(await a.locator('#reviews .error, #settings .error').count(), 0);
    await shot(a, 'reports-admin');
    // Another group's week from the picker.
    await a.selectOption('#report-group', 'speech');
    await a.waitForSelector('.report-head[data-group="speech"]');
    await shot(a, 'reports-admin-speech');
  }, { needs: 'reports' });

  await flow("a member reads their group's week and the organisation's, and only their group's review lines", async () => {
    const dev = await token('vision-dev', 'demo-password');
    const d = await signIn('vision-dev', 'demo-password');
    await go(d, 'Reports');
    await d.waitForSelector('.report-head[data-group="vision"]');
    // The page opens on the last finished week: the one the Monday report is about.
    assert.equal(await shown(d), thisWeek(7));
    const options = await d.$$eval('#report-group option', (os) => os.map((o) => [o.value, o.selected]));
    assert.deepEqual(options, [['', false], ['vision', true]], 'their group, and the organisation');
    await d.selectOption('#report-group', '');
    await d.waitForSelector('.report-head[data-group=""]');
    const org = await api('GET', reportQuery(thisWeek(), null), dev);
    assert.equal(org.status, 200, JSON.stringify(org.body));
    assert.equal(await d.locator('#reviews, #settings').count(), 0, 'reviews and settings are for admins');
    // Q5: the review's lines of their own group only (the page shows reviews to admins).
    const review = await api('GET', '/api/reviews/quotas', dev);
    assert.equal(review.status, 200, JSON.stringify(review.body));
    assert.ok(review.body.lines.every((l) => l.group === 'vision'), JSON.stringify(review.body));
  }, { needs: 'reports' });

  await flow("an admin's loan waits for the lender: no approve button for the admin who asked (B1)", async () => {
    const ends = Math.floor(Date.now() / 1000) + 86400;
    const asked = await api('POST', '/api/loans', admin, { lender: 'robotics', borrower: 'speech', gpus: 2, ends_at: ends, why: 'review run' });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    assert.equal(asked.body.state, 'requested');
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Borrowing');
    const row = `#loans tr[data-loan="${asked.body.id}"]`;
    await a.waitForSelector(`${row} .waiting`);
    assert.equal(await a.locator(`${row} button.approve`).count(), 0);
    const l = await signIn('robotics-lead', 'demo-password');
    await go(l, 'Borrowing');
    await l.click(`${row} button.approve`);
    await l.waitForSelector(`${row}[data-state="active"]`);
  });

  await flow('an admin sets a class\'s time limits; a member reads them and a job without a limit gets the default (P1)', async () => {
    const a = await signIn('admin', 'admin-pw');
    await go(a, 'Reports');
    const batch = '#time-limits-form tr[data-class="batch"]';
    await a.waitForSelector(`${batch} input.default`);
    await a.fill(`${batch} input.default`, '2');
    await a.fill(`${batch} input.max`, '10');
    await a.click('#time-limits-form button[type=submit]');
    await a.waitForSelector('#time-limits-saved');
    const limits = (await api('GET', '/api/settings/limits', admin)).body.classes;
    assert.deepEqual(limits.find((c) => c.class === 'batch'), { class: 'batch', default_s: 7200, max_s: 36000 });
    const d = await signIn('speech-dev', 'demo-password');
    await go(d, 'Queue');
    await d.waitForSelector('#time-limits-table tr[data-class="batch"]');
    assert.deepEqual(await d.$$eval('#time-limits-table tr[data-class="batch"] td', (ts) => ts.map((t) => t.textContent)), ['batch', '2', '10']);
    await d.fill('#submit-spec input[placeholder="name"]', 'overnight sweep');
    await d.fill('#submit-spec input[placeholder="command"]', 'python sweep.py');
    await d.fill('#submit-spec input[placeholder="GPUs"]', '1');
    await d.selectOption('#submit-spec select', 'batch');
    await d.click('#submit-spec button[type=submit]');
    const row = await d.waitForSelector('#my-jobs tr:has-text("overnight sweep")');
    assert.equal(await row.$eval('td.limit', (t) => t.textContent), '2 h');
    const id = await row.getAttribute('data-job');
    // Above the maximum: the server's refusal names it.
    await d.fill('#submit-spec input[placeholder="time limit (hours)"]', '11');
    await d.click('#submit-spec button[type=submit]');
    await until('the refusal', async () => (await d.textContent('body')).includes("batch class's maximum of 36000 s (10 h)"));
    await api('POST', `/api/jobs/${id}/cancel`, await token('speech-dev', 'demo-password'));
  }, { needs: 'reports' });
} finally {
  if (browser) await browser.close();
}
console.log(failed ? `${failed} browser flow(s) failed` : 'all browser flows passed');
process.exit(failed ? 1 : 0);
