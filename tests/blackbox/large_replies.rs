//! The real executable gives the memory of large replies back: after a
//! flood of them its resident memory falls back once they are sent,
//! instead of staying at the flood's peak while idle.

use crate::support::service::{giro_with_expenses, status_mib, Service};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn resident_memory_after_a_flood_of_large_replies_falls_below_128_mb() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path(), &[]);
    let pid = service.child.id();
    let cookie = service.register("flood@example.org").await;
    // 2,000 one-time expenses with long notes: every page of 1,000 of them
    // is a reply of about 12 MB.
    let notes = "Notiz ".repeat(2000);
    giro_with_expenses(&service, &cookie, dir.path(), 2_000, &notes, |i| {
        format!("2026-{:02}-{:02}", 1 + i % 10, 1 + i % 28)
    })
    .await;

    let service = std::sync::Arc::new(service);
    let mut flood = Vec::new();
    for _ in 0..8 {
        let (service, cookie) = (service.clone(), cookie.clone());
        flood.push(tokio::spawn(async move {
            let mut bytes = 0;
            for _ in 0..3 {
                let res = service
                    .client
                    .post(format!("{}/actions/listDailyExpenses", service.base))
                    .header("content-type", "application/json")
                    .header("cookie", format!("cashkeeper_session={cookie}"))
                    .body(
                        json!({"from": "2026-01-01", "to": "2026-12-31", "limit": 1000})
                            .to_string(),
                    )
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 200);
                bytes = res.bytes().await.unwrap().len();
            }
            bytes
        }));
    }
    for f in flood {
        let bytes = f.await.unwrap();
        assert!(bytes > 5_000_000, "a large reply: {bytes} bytes");
    }
    let peak = status_mib(pid, "VmHWM");
    // Each reply of more than 1 MiB trims the allocator once it is sent;
    // the last one's trim runs on a blocking thread just after it. Wait
    // for it by watching the process, not the clock.
    let mut resident = status_mib(pid, "VmRSS");
    for _ in 0..200_000 {
        if resident < 128 {
            break;
        }
        std::thread::yield_now();
        tokio::task::yield_now().await;
        resident = status_mib(pid, "VmRSS");
    }
    assert!(
        resident < 128,
        "{resident} MiB resident after the flood (peak {peak} MiB)"
    );
    assert!(peak > 200, "the flood took memory: peak {peak} MiB");
    eprintln!("large replies: peak {peak} MiB, resident after {resident} MiB");
}
