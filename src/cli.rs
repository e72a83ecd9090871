//! The command line (README, "Command line"). With no subcommand it serves.

use crate::app;
use crate::auth::password;
use crate::clock::{timestamp, Clock};
use crate::config::Config;
use crate::domain::email::Email;
use crate::domain::locale::Locale;
use crate::error::Reason;
use crate::store::{self, Db};
use anyhow::{bail, Context};
use clap::{ArgAction, Parser, Subcommand};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "cashkeeper",
    about = "Self-hosted personal finance tracker: one binary, one SQLite file.",
    long_about = "Self-hosted personal finance tracker: one binary, one SQLite file.\n\n\
        Without a command it serves (like `cashkeeper serve`). Configuration comes from \
        environment variables; all are optional (see the README).",
    disable_version_flag = true
)]
pub struct Cli {
    /// Print the version (the same as /api/v1/health reports) and exit.
    #[arg(short = 'V', long = "version", action = ArgAction::SetTrue)]
    pub version: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the web app and the API (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage users.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manage personal API tokens for /api/v1.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Write a consistent copy of the database to FILE, also while serving,
    /// and copy the documents beside it (`copy.db` → `copy.documents/`).
    Backup {
        /// Where to write the copy (replaced if it exists).
        file: PathBuf,
    },
    /// Exit 0 when the instance of this configuration answers
    /// /api/v1/health on its CASHKEEPER_BIND address, 1 otherwise (for a
    /// container's HEALTHCHECK: the image needs no curl).
    Healthcheck,
    /// Write one user's data (records, documents, settings) as a zip
    /// archive to FILE, as "Export my data" in Settings does.
    Export {
        #[arg(long)]
        email: String,
        /// Where to write the archive (replaced if it exists).
        #[arg(long)]
        out: PathBuf,
    },
    /// Load an archive of `cashkeeper export` (or "Export my data") as the
    /// data of user E: created if missing (then set a password with `user
    /// set-password`), otherwise a user with no records yet.
    ImportUser {
        #[arg(long)]
        email: String,
        /// The zip archive.
        file: PathBuf,
    },
    /// Restore a backup FILE (and FILE's documents folder beside it) into the
    /// data directory of a stopped instance, after checking the file.
    Restore {
        /// A copy written by `cashkeeper backup` or a scheduled backup.
        file: PathBuf,
    },
    /// Print a new VAPID key pair for web push, as VAPID_PUBLIC_KEY=… and VAPID_PRIVATE_KEY=….
    VapidKeys,
    /// Create (or refill) a user with a year of realistic demo data.
    Demo {
        /// The demo user's email; created if missing (its password is printed),
        /// otherwise all its records are replaced.
        #[arg(long)]
        email: String,
        /// The benchmark user instead: 10 years, 300 recurring items,
        /// 50,000 one-time expenses, 4 currencies.
        #[arg(long)]
        heavy: bool,
        /// Read the password of a new demo user from standard input.
        #[arg(long)]
        password_stdin: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Create a token for a user and print it (it is shown only this once).
    Create {
        /// The user's email address.
        #[arg(long)]
        email: String,
        /// A name to recognise the token by, e.g. "Home Assistant".
        #[arg(long)]
        name: String,
        /// Days until it expires: 30, 90 or 365; without it, never.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["30", "90", "365"]))]
        expires_days: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user (works whatever CASHKEEPER_REGISTRATION says).
    Create {
        /// The user's email address (sign-in name).
        #[arg(long)]
        email: String,
        /// Read the password from standard input (first line).
        #[arg(long, required = true)]
        password_stdin: bool,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
    },
    /// List the users: email, name, state, records, created.
    List,
    /// Set a user's password (read from standard input) and sign them out
    /// everywhere.
    SetPassword {
        #[arg(long)]
        email: String,
        /// Read the password from standard input (first line).
        #[arg(long, required = true)]
        password_stdin: bool,
    },
    /// Stop a user from signing in: their sessions end and their API tokens
    /// are revoked; their data stays.
    Disable {
        #[arg(long)]
        email: String,
    },
    /// Let a disabled user sign in again.
    Enable {
        #[arg(long)]
        email: String,
    },
    /// Turn a user's two-factor sign-in off (lost phone and recovery
    /// codes): they sign in with the password alone and can set it up again.
    #[command(name = "reset-2fa")]
    ResetTwoFactor {
        #[arg(long)]
        email: String,
    },
    /// Delete a user and everything of theirs, documents included.
    Delete {
        #[arg(long)]
        email: String,
    },
}

/// Parses the command line, runs the command, and turns any error into one
/// line on stderr and exit code 1.
pub fn main() -> ExitCode {
    private_files();
    let cli = Cli::parse();
    if cli.version {
        println!("{}", crate::VERSION);
        return ExitCode::SUCCESS;
    }
    init_logging();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// Everything the process creates (the data directory, the database and
/// its `-wal` and `-shm`, documents, backups, exports) is readable and
/// writable by its owner only, whatever umask it was started with: money
/// records are nobody else's business on a shared machine. (The systemd
/// unit sets the same with `UMask=0077`.)
#[cfg(unix)]
fn private_files() {
    // SAFETY: `umask` only sets the process's file mode creation mask; it
    // is called first thing in `main`, before any other thread exists.
    unsafe {
        libc::umask(0o077);
    }
}

#[cfg(not(unix))]
fn private_files() {}

/// `cashkeeper healthcheck`: one GET of `/api/v1/health` on the local
/// address the service binds (a wildcard address is reached on loopback).
async fn healthcheck(config: &Config) -> anyhow::Result<()> {
    let mut addr = config.bind;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    let url = format!("http://{addr}/api/v1/health");
    let client = crate::outbound::http_client()
        .timeout(std::time::Duration::from_secs(3))
        .no_proxy()
        .build()?;
    let res = client
        .get(&url)
        .send()
        .await
        .with_context(|| format!("no answer from {url}"))?;
    if !res.status().is_success() {
        bail!("{url} answered {}", res.status());
    }
    println!("healthy: {url}");
    Ok(())
}

fn one_line(e: &anyhow::Error) -> String {
    e.chain()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(": ")
        .replace('\n', " ")
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,refinery_core=warn"));
    // Colours only on a terminal: `docker logs` and the journal get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .try_init();
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // vapid-keys needs no configuration at all.
    if let Some(Command::VapidKeys) = cli.command {
        let (public, private) = crate::config::Vapid::generate();
        println!("VAPID_PUBLIC_KEY={public}");
        println!("VAPID_PRIVATE_KEY={private}");
        return Ok(());
    }
    let config = Config::from_env().map_err(|e| anyhow::anyhow!(e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let served = runtime.block_on(crate::server::run(config));
            // Blocking work still running (a long read, a request dropped
            // after the grace) is not waited for: the database is safe
            // whenever the process ends.
            runtime.shutdown_timeout(crate::server::SHUTDOWN_STEP);
            served
        }
        Command::Healthcheck => runtime.block_on(healthcheck(&config)),
        Command::Migrate => {
            config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
            let applied = store::prepare(&config.data_dir)?;
            println!("migrations applied: {applied}");
            Ok(())
        }
        Command::Backup { file } => {
            let written = store::backups::write(&config.data_dir, &file)?;
            println!("backup written to {}", written.file.display());
            let folder = store::documents::backup_folder(&file);
            println!(
                "{} documents copied to {}",
                written.documents,
                folder.display()
            );
            Ok(())
        }
        Command::Export { email, out } => runtime.block_on(export(config, email, out)),
        Command::ImportUser { email, file } => runtime.block_on(import_user(config, email, file)),
        Command::Restore { file } => {
            // Also into a new machine's data directory, not created yet.
            config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
            let restored = store::backups::restore(&config.data_dir, &file)?;
            println!(
                "restored {} (schema version {}) into {}",
                file.display(),
                restored.version,
                config.data_dir.display()
            );
            match restored.documents {
                Some(n) => println!("{n} documents restored"),
                None => println!(
                    "no {} beside the backup: the documents were left as they are",
                    store::documents::backup_folder(&file).display()
                ),
            }
            println!("start the service to apply any newer migrations");
            Ok(())
        }
        Command::User {
            command:
                UserCommand::Create {
                    email,
                    password_stdin: _,
                    name,
                },
        } => runtime.block_on(create_user(config, email, name)),
        Command::User { command } => runtime.block_on(user_command(config, command)),
        Command::Token {
            command:
                TokenCommand::Create {
                    email,
                    name,
                    expires_days,
                },
        } => runtime.block_on(create_token(config, email, name, expires_days)),
        Command::Demo {
            email,
            heavy,
            password_stdin,
        } => runtime.block_on(demo(config, email, heavy, password_stdin)),
        Command::VapidKeys => unreachable!("handled above"),
    }
}

async fn demo(
    config: Config,
    email: String,
    heavy: bool,
    password_stdin: bool,
) -> anyhow::Result<()> {
    let email = Email::parse("--email", &email)?;
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    let db = Db::open(&config.data_dir)?;
    let lookup = email.as_str().to_string();
    let existing = db
        .run(move |c| store::users::find_by_email(c, &lookup))
        .await?;
    let mut new_password = None;
    let hash = if existing.is_none() {
        let pw = if password_stdin {
            read_password()?
        } else {
            crate::auth::secrets::random_hex(8)
        };
        password::check_rule("password", &pw)?;
        new_password = Some(pw.clone());
        Some(password::hash(pw).await?)
    } else {
        None
    };
    let clock = Clock::default();
    let (now, today) = (clock.now(), clock.today());
    let (user, summary) = db
        .transaction(move |tx| {
            let now_s = timestamp(now);
            let user = match existing {
                Some(u) => u,
                None => store::users::insert(
                    tx,
                    &store::users::NewUser {
                        email: email.as_str(),
                        name: "Demo",
                        password_hash: hash.as_deref().unwrap_or_default(),
                        locale: Locale::De,
                        now: &now_s,
                    },
                )?,
            };
            crate::demo::clear(tx, &user.id)?;
            store::categories::insert_defaults(tx, &user.id, user.locale, &now_s)?;
            let summary = if heavy {
                crate::demo::fill_heavy(tx, &user.id, today, now)?
            } else {
                crate::demo::fill_household(tx, &user.id, today, now)?
            };
            Ok((user, summary))
        })
        .await?;
    // Insights of the new data, so the insights page has something to say.
    let rates = crate::services::rates::RateStore::load(&db)?;
    let for_insights = user.clone();
    let insights = db
        .run(move |c| crate::app::insights::run_for_user(c, &for_insights, &rates, now))
        .await?;
    println!(
        "demo data for {}: {} accounts, {} recurring expenses, {} incomes, {} transfers, {} one-time expenses, {} budgets, {} insights",
        user.email, summary.accounts, summary.recurring, summary.incomes, summary.transfers, summary.daily, summary.budgets, insights
    );
    if let Some(pw) = new_password.filter(|_| !password_stdin) {
        println!("sign in as {} with the password {pw}", user.email);
    }
    Ok(())
}

async fn create_token(
    config: Config,
    email: String,
    name: String,
    expires_days: Option<String>,
) -> anyhow::Result<()> {
    let email = Email::parse("--email", &email)?;
    let name = crate::app::input::text("--name", Some(name), 100)?;
    let days = expires_days.map(|d| d.parse::<u32>()).transpose()?;
    let db = Db::open(&config.data_dir)?;
    let now = Clock::default().now();
    let lookup = email.as_str().to_string();
    let created = db
        .transaction(move |tx| {
            let user = store::users::find_by_email(tx, &lookup)?
                .ok_or_else(|| crate::Error::invalid("--email", Reason::NoSuchUser))?;
            crate::auth::api_tokens::create_for(tx, &user.id, &name, days, now)
        })
        .await?;
    match &created.record.expires_at {
        Some(at) => eprintln!(
            "token \"{}\" created; it expires at {at}. It is shown only now:",
            created.record.name
        ),
        None => eprintln!(
            "token \"{}\" created; it never expires. It is shown only now:",
            created.record.name
        ),
    }
    println!("{}", created.token);
    Ok(())
}

/// The first line of standard input.
fn read_password() -> anyhow::Result<String> {
    let mut input = String::new();
    std::io::stdin()
        .take(4096)
        .read_to_string(&mut input)
        .context("reading the password from standard input")?;
    Ok(input.lines().next().unwrap_or("").to_string())
}

/// `cashkeeper export --email E --out FILE`.
async fn export(config: Config, email: String, out: PathBuf) -> anyhow::Result<()> {
    let email = Email::parse("--email", &email)?;
    let source = config.data_dir.join(store::DB_FILE);
    if !source.exists() {
        bail!("no database at {} (CASHKEEPER_DATA_DIR)", source.display());
    }
    let db = Db::open(&config.data_dir)?;
    let key = email.key();
    let user = db
        .run(move |c| store::users::find_by_email(c, &key))
        .await?
        .ok_or_else(|| anyhow::anyhow!("--email: no user {}", email.as_str()))?;
    let name = out
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("--out: must name a file"))?
        .to_string_lossy()
        .into_owned();
    let tmp = out.with_file_name(format!(".{name}.partial"));
    let files = store::documents::Files::new(&config.data_dir);
    let now = timestamp(Clock::default().now());
    let file = std::fs::File::create(&tmp)
        .with_context(|| format!("--out: cannot write {}", tmp.display()))?;
    let summary = crate::app::export::write(&db, &files, &user, now, file).await;
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e.into());
        }
    };
    std::fs::rename(&tmp, &out)
        .with_context(|| format!("--out: cannot write {}", out.display()))?;
    println!(
        "exported {} records and {} documents of {} to {}",
        summary.records,
        summary.documents,
        user.email,
        out.display()
    );
    Ok(())
}

/// `cashkeeper import-user --email E FILE`.
async fn import_user(config: Config, email: String, file: PathBuf) -> anyhow::Result<()> {
    let email = Email::parse("--email", &email)?;
    let archive = std::fs::File::open(&file)
        .with_context(|| format!("{} cannot be opened", file.display()))?;
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    let db = Db::open(&config.data_dir)?;
    let key = email.key();
    let existing = db
        .run(move |c| store::users::find_by_email(c, &key))
        .await?;
    let (user, created) = match existing {
        Some(user) => (user, false),
        None => {
            // A password nobody knows until the administrator sets one.
            let secret = hex::encode(rand::random::<[u8; 24]>());
            let hash = password::hash(secret).await?;
            let now = timestamp(Clock::default().now());
            let e = email.clone();
            let user = db
                .transaction(move |tx| {
                    app::users::open(
                        tx,
                        &store::users::NewUser {
                            email: e.as_str(),
                            name: "",
                            password_hash: &hash,
                            locale: Locale::En,
                            now: &now,
                        },
                    )
                })
                .await?;
            (user, true)
        }
    };
    let files = store::documents::Files::new(&config.data_dir);
    let now = timestamp(Clock::default().now());
    let limits = store::export::Limits::command(config.document_quota);
    let result = crate::app::export::load(&db, &files, &user.id, archive, limits, now).await;
    let imported = match result {
        Ok(i) => i,
        Err(e) => {
            if created {
                let _ = app::users::delete(&db, &files, &user.id).await;
            }
            let cause = match e {
                crate::Error::Internal(cause) => cause,
                other => anyhow::anyhow!(other),
            };
            return Err(cause.context(file.display().to_string()));
        }
    };
    println!(
        "imported {} records and {} documents into {}",
        imported.records, imported.documents, user.email
    );
    if created {
        println!(
            "created {}; set a password: cashkeeper user set-password --email {} --password-stdin",
            user.email, user.email
        );
    }
    Ok(())
}

/// The administrator's user commands other than `create`.
async fn user_command(config: Config, command: UserCommand) -> anyhow::Result<()> {
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    let db = Db::open(&config.data_dir)?;
    let now = Clock::default().now();
    let find = |email: String| {
        let db = db.clone();
        async move {
            let email = Email::parse("--email", &email)?;
            app::users::find(&db, &email)
                .await?
                .ok_or_else(|| anyhow::anyhow!("--email: no user {}", email.as_str()))
        }
    };
    match command {
        UserCommand::Create { .. } => unreachable!("handled by create_user"),
        UserCommand::List => {
            let list = app::users::list(&db).await?;
            println!(
                "{:<36}  {:<24}  {:<8}  {:>7}  created",
                "email", "name", "state", "records"
            );
            for l in list {
                let state = if l.disabled_at.is_some() {
                    "disabled"
                } else {
                    "active"
                };
                println!(
                    "{:<36}  {:<24}  {:<8}  {:>7}  {}",
                    l.user.email, l.user.name, state, l.records, l.user.created_at
                );
            }
        }
        UserCommand::SetPassword { email, .. } => {
            let user = find(email).await?;
            app::users::set_password(&db, &user.id, read_password()?, now).await?;
            println!("password of {} set; their sessions ended", user.email);
        }
        UserCommand::Disable { email } => {
            let user = find(email).await?;
            app::users::disable(&db, &user.id, now).await?;
            println!("{} disabled: signed out, API tokens revoked", user.email);
        }
        UserCommand::Enable { email } => {
            let user = find(email).await?;
            app::users::enable(&db, &user.id, now).await?;
            println!("{} enabled", user.email);
        }
        UserCommand::ResetTwoFactor { email } => {
            let user = find(email).await?;
            if app::users::reset_two_factor(&db, &user.id).await? {
                println!(
                    "two-factor sign-in of {} is off; they sign in with the password alone",
                    user.email
                );
            } else {
                println!("{} had no two-factor sign-in; nothing changed", user.email);
            }
        }
        UserCommand::Delete { email } => {
            let user = find(email).await?;
            let files = store::documents::Files::new(&config.data_dir);
            app::users::delete(&db, &files, &user.id).await?;
            println!("{} deleted with all their data", user.email);
        }
    }
    Ok(())
}

async fn create_user(config: Config, email: String, name: Option<String>) -> anyhow::Result<()> {
    let email = Email::parse("--email", &email)?;
    let name = crate::app::sign_in::parse_name("--name", name.as_deref().unwrap_or(""))?;
    let pw = read_password()?;
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    let db = Db::open(&config.data_dir)?;
    let user =
        app::users::create(&db, &email, name, pw, Locale::En, Clock::default().now()).await?;
    println!("created user {} ({})", user.email, user.id);
    Ok(())
}
