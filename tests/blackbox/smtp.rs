//! A real SMTP server on loopback that accepts every message and hands it
//! to the test.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub struct Sink {
    pub url: String,
    pub mails: mpsc::UnboundedReceiver<Mail>,
}

#[derive(Debug, Clone)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

impl Mail {
    /// The message with quoted-printable soft breaks and escapes undone.
    pub fn decoded(&self) -> String {
        let joined = self.data.replace("=\r\n", "");
        let bytes = joined.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'=' && i + 2 < bytes.len() {
                if let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                    out.push(b);
                    i += 3;
                    continue;
                }
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

pub async fn start() -> Sink {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 sink ESMTP\r\n").await.ok();
                let (mut from, mut to) = (String::new(), Vec::new());
                while let Ok(Some(line)) = lines.next_line().await {
                    let upper = line.to_ascii_uppercase();
                    let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
                        b"250-sink\r\n250 8BITMIME\r\n"
                    } else if upper.starts_with("MAIL FROM:") {
                        from = line[10..].trim().to_string();
                        b"250 OK\r\n"
                    } else if upper.starts_with("RCPT TO:") {
                        to.push(line[8..].trim().to_string());
                        b"250 OK\r\n"
                    } else if upper == "DATA" {
                        write.write_all(b"354 end with .\r\n").await.ok();
                        let mut data = String::new();
                        while let Ok(Some(l)) = lines.next_line().await {
                            if l == "." {
                                break;
                            }
                            data.push_str(&l);
                            data.push_str("\r\n");
                        }
                        let _ = tx.send(Mail {
                            from: std::mem::take(&mut from),
                            to: std::mem::take(&mut to),
                            data,
                        });
                        b"250 queued\r\n"
                    } else if upper == "QUIT" {
                        write.write_all(b"221 bye\r\n").await.ok();
                        break;
                    } else {
                        b"250 OK\r\n"
                    };
                    if write.write_all(reply).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    Sink {
        url: format!("smtp://{addr}"),
        mails: rx,
    }
}
