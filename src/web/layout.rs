//! The page shell: head, navigation for every area, main, footer.

use super::assets;
use super::SCREENS;
use crate::domain::locale::Locale;
use crate::http::session::Viewer;
use maud::{html, Markup, DOCTYPE};

/// The head of every page; `scripts` are the page's own scripts (embedded
/// assets, deferred like `app.js`).
fn head(title: &str, scripts: &[&str]) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="color-scheme" content="light dark";
            title { (title) " · cashkeeper" }
            link rel="icon" href=(assets::url("favicon.svg")) type="image/svg+xml";
            // iPhones and iPads take a PNG for the home screen.
            link rel="apple-touch-icon" href=(assets::url("apple-touch-icon.png"));
            link rel="manifest" href=(assets::url("manifest.webmanifest"));
            meta name="theme-color" content="#0f766e";
            link rel="stylesheet" href=(assets::url("app.css"));
            link rel="stylesheet" href=(assets::url("charts.css"));
            script src=(assets::url("app.js")) defer {}
            @for name in scripts {
                script src=(assets::url(name)) defer {}
            }
        }
    }
}

/// A page for a signed-in user: navigation beside (or, on a phone, above)
/// the content. `current` is the path of the active navigation entry.
pub fn page(viewer: &Viewer, current: &str, title: &str, content: Markup) -> Markup {
    page_with_scripts(viewer, current, title, &[], content)
}

/// Like [`page`], with scripts of its own besides `app.js` (names of
/// embedded assets, e.g. `assistant.js`).
pub fn page_with_scripts(
    viewer: &Viewer,
    current: &str,
    title: &str,
    scripts: &[&str],
    content: Markup,
) -> Markup {
    let t = viewer.t();
    html! {
        (DOCTYPE)
        html lang=(viewer.locale.code()) {
            (head(title, scripts))
            body.app data-msg-required=(t.field_required) data-msg-invalid=(t.field_invalid) data-msg-network=(t.import_network) data-msg-chart-scroll=(t.chart_scroll_hint) data-msg-last-used=(crate::i18n::guide::words(viewer.locale).last_used) {
                a.skip href="#main" { (t.skip_to_content) }
                header.topbar {
                    a.brand href="/" { span.logo aria-hidden="true" { "€" } (t.app_name) }
                    // A checkbox opens the menu on narrow screens without script.
                    input #nav-toggle.nav-toggle type="checkbox";
                    label.nav-button for="nav-toggle" { (t.menu) }
                    nav.mainnav aria-label=(t.menu) {
                        ul {
                            @for (href, label) in SCREENS.iter().filter_map(|s| Some((s.path, s.nav?))) {
                                li {
                                    a href=(href) aria-current=[(href == current).then_some("page")] {
                                        (label(t))
                                    }
                                }
                            }
                        }
                        @if let Some(s) = &viewer.session {
                            div.navfoot {
                                span.who title=(s.user.email) {
                                    @if s.user.name.is_empty() { (s.user.email) } @else { (s.user.name) }
                                }
                                form data-action="logout" data-redirect="/login" {
                                    button.link type="submit" { (t.logout) }
                                }
                            }
                        }
                    }
                }
                main #main tabindex="-1" {
                    (content)
                }
                footer.footer {
                    (language_switch(viewer))
                    span.version { "cashkeeper " (crate::VERSION) }
                }
            }
        }
    }
}

/// Buttons that switch the signed-in user's language.
fn language_switch(viewer: &Viewer) -> Markup {
    let t = viewer.t();
    html! {
        @if viewer.session.is_some() {
            div.lang role="group" aria-label=(t.language) {
                @for (locale, label) in [(Locale::De, "Deutsch"), (Locale::En, "English")] {
                    form data-action="updateSettings" data-reload="" {
                        input type="hidden" name="locale" value=(locale.code());
                        button.link type="submit" lang=(locale.code())
                            aria-pressed=(if viewer.locale == locale { "true" } else { "false" }) {
                            (label)
                        }
                    }
                }
            }
        }
    }
}

/// A page without navigation: sign-in, register, password reset, errors.
pub fn bare(viewer: &Viewer, title: &str, content: Markup) -> Markup {
    let t = viewer.t();
    html! {
        (DOCTYPE)
        html lang=(viewer.locale.code()) {
            (head(title, &[]))
            body.bare data-msg-required=(t.field_required) data-msg-invalid=(t.field_invalid) data-msg-network=(t.import_network) {
                main #main.card-page {
                    a.brand.center href="/" { span.logo aria-hidden="true" { "€" } (t.app_name) }
                    (content)
                }
            }
        }
    }
}
