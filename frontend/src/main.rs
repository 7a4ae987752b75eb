//! Tidepool's web app: sign in, then the pages a role may use (MISSION Q6). Admins,
//! managers and members see the same records (V3); the buttons each sees are the actions
//! the API allows them, and the API refuses the rest anyway.

mod api;
mod cluster;
mod inbox;
mod job;
mod limits;
mod loans;
mod policies;
mod projects;
mod queue;
mod records;
mod replays;
mod reports;
mod reviews;
mod settings;
mod templates;
mod ui;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tidepool_api::{Login, Logout, Role, Tokens, User};

use api::Session;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Page {
    Cluster,
    Queue,
    Templates,
    Projects,
    Loans,
    Quotas,
    Policies,
    Records,
    Reports,
    Inbox,
}

impl Page {
    const ALL: [Page; 10] = [
        Page::Cluster,
        Page::Queue,
        Page::Templates,
        Page::Projects,
        Page::Loans,
        Page::Quotas,
        Page::Policies,
        Page::Records,
        Page::Reports,
        Page::Inbox,
    ];

    fn title(self) -> &'static str {
        match self {
            Page::Cluster => "Cluster",
            Page::Queue => "Queue",
            Page::Templates => "Templates",
            Page::Projects => "Projects",
            Page::Loans => "Borrowing",
            Page::Quotas => "Quotas",
            Page::Policies => "Policies",
            Page::Records => "Records",
            Page::Reports => "Reports",
            Page::Inbox => "Inbox",
        }
    }

    /// Pages by role: policies for admins; the rest for everyone (the Reports page shows
    /// each role the reports it may read).
    fn for_role(self, role: Option<Role>) -> bool {
        match self {
            Page::Policies => role == Some(Role::Admin),
            _ => true,
        }
    }
}

fn main() {
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let session = Session::new();
    api::install(session);
    provide_context(session);
    // A stored token: find out who it belongs to (or that it expired).
    if session.token.get_untracked().is_some() {
        spawn_local(async move {
            match api::get::<User>("/api/me").await {
                Ok(me) => session.me.set(Some(me)),
                Err(_) => session.sign_out(),
            }
        });
    }
    let page = RwSignal::new(Page::Cluster);
    provide_context(inbox::Unread(RwSignal::new(0)));
    view! {
        <Show when=move || session.me.get().is_some() fallback=move || view! { <Login/> }>
            <header>
                <h1>"Tidepool"</h1>
                <nav>
                    {move || {
                        let role = session.role();
                        Page::ALL
                            .into_iter()
                            .filter(|p| p.for_role(role))
                            .map(|p| {
                                view! {
                                    <button
                                        class:on=move || page.get() == p
                                        data-page=p.title()
                                        on:click=move |_| page.set(p)
                                    >
                                        {p.title()}
                                        {(p == Page::Inbox).then(|| view! { " " <inbox::UnreadBadge/> })}
                                    </button>
                                }
                            })
                            .collect_view()
                    }}
                </nav>
                <span class="who">
                    {move || session.me.get().map(|m| format!("{} ({})", m.username, m.role.as_str()))}
                    " "
                    <button on:click=move |_| sign_out(session)>"Sign out"</button>
                </span>
            </header>
            <main>
                {move || match page.get() {
                    Page::Cluster => cluster::ClusterPage().into_any(),
                    Page::Queue => queue::QueuePage().into_any(),
                    Page::Templates => templates::TemplatesPage().into_any(),
                    Page::Projects => projects::ProjectsPage().into_any(),
                    Page::Loans => loans::LoansPage().into_any(),
                    Page::Quotas => cluster::QuotasPage().into_any(),
                    Page::Policies => policies::PoliciesPage().into_any(),
                    Page::Records => records::RecordsPage().into_any(),
                    Page::Reports => reports::ReportsPage().into_any(),
                    Page::Inbox => inbox::InboxPage().into_any(),
                }}
            </main>
            <Show when=move || session.expired.get()>
                <div class="overlay">
                    <div class="card">
                        <p>"Your session has expired. Sign in again; what you typed is kept."</p>
                        <Login/>
                    </div>
                </div>
            </Show>
        </Show>
    }
}

/// Ends the sign-in on the server too, so the token stops working at once even where a
/// copy of it survives (another tab, a proxy's log).
fn sign_out(session: Session) {
    spawn_local(async move {
        let _ = api::post::<_, ()>("/api/auth/logout".into(), Logout::default()).await;
        session.sign_out();
    });
}

#[component]
fn Login() -> impl IntoView {
    let session = api::session();
    let username = RwSignal::new(session.me.get_untracked().map(|m| m.username).unwrap_or_default());
    let password = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = Login { username: username.get(), password: password.get() };
        spawn_local(async move {
            match api::post::<_, Tokens>("/api/auth/login".into(), body).await {
                Ok(tokens) => session.sign_in(tokens),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <div class="card" id="login">
            <h2>"Sign in to Tidepool"</h2>
            <form on:submit=submit>
                <input name="username" placeholder="username" bind:value=username/>
                <input name="password" type="password" placeholder="password" bind:value=password/>
                <button class="primary" type="submit">"Sign in"</button>
            </form>
            <p class="error">{move || error.get()}</p>
        </div>
    }
}
