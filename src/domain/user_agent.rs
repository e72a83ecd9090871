//! A short name for a browser from its `User-Agent`, for the list of
//! signed-in sessions: "Firefox 128 on Linux", "Safari on iPhone". Only the
//! common browsers and systems are named; anything else keeps its raw text
//! (shown as a tooltip beside it).

/// `Some("Browser N <on> System")` with the language's word for `on`
/// ("Firefox 128 auf Linux"), or `None` when neither is recognised.
pub fn label(ua: &str, on: &str) -> Option<String> {
    let browser = browser(ua);
    let system = system(ua);
    match (browser, system) {
        (Some(b), Some(s)) => Some(format!("{b} {on} {s}")),
        (Some(b), None) => Some(b),
        (None, Some(s)) => Some(s.to_string()),
        (None, None) => None,
    }
}

fn version_after(ua: &str, token: &str) -> Option<String> {
    let start = ua.find(token)? + token.len();
    let major: String = ua[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    (!major.is_empty()).then_some(major)
}

fn named(name: &str, ua: &str, token: &str) -> String {
    match version_after(ua, token) {
        Some(v) => format!("{name} {v}"),
        None => name.to_string(),
    }
}

fn browser(ua: &str) -> Option<String> {
    // Order matters: Edge and Opera also say Chrome; Chrome also says Safari.
    if ua.contains("Edg/") || ua.contains("EdgA/") || ua.contains("EdgiOS/") {
        return Some(named("Edge", ua, "Edg/"));
    }
    if ua.contains("OPR/") {
        return Some(named("Opera", ua, "OPR/"));
    }
    if ua.contains("SamsungBrowser/") {
        return Some(named("Samsung Internet", ua, "SamsungBrowser/"));
    }
    if ua.contains("Firefox/") {
        return Some(named("Firefox", ua, "Firefox/"));
    }
    if ua.contains("FxiOS/") {
        return Some(named("Firefox", ua, "FxiOS/"));
    }
    if ua.contains("CriOS/") {
        return Some(named("Chrome", ua, "CriOS/"));
    }
    if ua.contains("Chrome/") || ua.contains("Chromium/") {
        return Some(named("Chrome", ua, "Chrome/"));
    }
    if ua.contains("Safari/") && ua.contains("Version/") {
        return Some(named("Safari", ua, "Version/"));
    }
    if ua.starts_with("curl/") {
        return Some("curl".into());
    }
    None
}

fn system(ua: &str) -> Option<&'static str> {
    let found = if ua.contains("iPhone") {
        "iPhone"
    } else if ua.contains("iPad") {
        "iPad"
    } else if ua.contains("Android") {
        "Android"
    } else if ua.contains("Windows") {
        "Windows"
    } else if ua.contains("Mac OS X") || ua.contains("Macintosh") {
        "macOS"
    } else if ua.contains("CrOS") {
        "ChromeOS"
    } else if ua.contains("Linux") || ua.contains("X11") {
        "Linux"
    } else {
        return None;
    };
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_browsers_are_named_with_their_system() {
        for (ua, want) in [
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox 128 on Linux"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome 131 on Windows"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86", "Edge 131 on Windows"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari 17 on iPhone"),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari 18 on macOS"),
            ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36", "Chrome 131 on Android"),
            ("Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet 26 on Android"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome 131 on iPhone"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0", "Opera 115 on Windows"),
            ("curl/8.5.0", "curl"),
        ] {
            assert_eq!(label(ua, "on").as_deref(), Some(want), "{ua}");
        }
        assert_eq!(
            label(
                "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                "auf"
            )
            .as_deref(),
            Some("Firefox 128 auf Linux")
        );
    }

    #[test]
    fn unknown_or_empty_agents_are_not_named() {
        assert_eq!(label("", "on"), None);
        assert_eq!(label("HomeAssistant/2024.11 aiohttp/3.10", "on"), None);
    }
}
