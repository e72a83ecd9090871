//! Why an input or a request is refused, as a value: what the code decides.
//! How a person reads it, in English and in German, is `i18n/reasons.rs`;
//! nothing here is worded, so no refusal is ever parsed back from its text.

/// Columns of an unknown layout offered for a mapping at most.
pub const LAYOUT_COLUMNS_OFFERED: usize = 200;
/// Columns of an unknown layout its refusal's words name at most.
pub const LAYOUT_COLUMNS_NAMED: usize = 20;

/// Why a field (in [`Error::Invalid`](super::Error::Invalid)) or a request
/// (in [`Error::Refused`](super::Error::Refused)) is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    // Any field.
    Required,
    /// Given, but not in the form the field takes (the decoder's own words,
    /// for the log; a person reads that the form is wrong).
    Malformed(String),
    MaxChars(usize),
    NotText,
    NotAWholeNumber,
    NotTrueOrFalse,
    /// Not one of these values.
    OneOf(Vec<String>),
    NotAList,
    NotAnObject,
    NotBase64,
    /// A whole number from the first to the second.
    WholeNumber(i64, i64),
    /// Between the first and the second (a month, a year, a page size).
    Between(i64, i64),
    /// The named field's day lies after this one.
    NotBefore(&'static str),
    Empty,
    /// About one part of a file: a file in an archive, say.
    InFile(String, Box<Reason>),

    // Amounts and dates.
    Positive,
    NotNegative,
    TwoDecimals,
    AmountTooLarge,
    NotANumber,
    NotADate,
    NotAValidDate,
    YearOutOfRange,
    NotAMonth,
    AtMostAYear,
    UnknownCurrency(String),
    Frequency,
    FrequencyOrOnce,

    // Accounts, categories and records.
    AccountType,
    AnotherAccount,
    AnotherThanSource,
    AccountInUse(Vec<(usize, Uses)>),
    CategoryExists,
    NotAnEmoji,
    NotAColour,
    LimitReached(i64, Counted),
    NoReservePot,
    /// Not one of one-time entries repeated monthly with the same payee
    /// and amount (`makeRecurring`).
    NotARepeat,
    /// Contract terms: `termEnd` given without a notice.
    NoticeNeeded,
    /// Contract terms: a notice given without `termEnd` while the contract renews.
    TermEndNeeded,
    /// Contract terms: both `noticeMonths` and `noticeDays` given.
    OneNotice,
    /// `cancelledTo` given a day by `updateExpense`: only `cancelContract` sets it.
    CancelledByAction,
    /// `cancelContract` on an item without contract terms.
    NoContractTerms,
    /// `cancelContract` on a day after the last one the current term can
    /// be cancelled on (that day).
    AfterCancelBy(chrono::NaiveDate),
    DeOrEn,
    TokenLifetime,

    // Documents and receipt photos.
    NotADocument,
    DocumentTooLarge,
    DocumentOwners,
    QuotaFull {
        quota_mb: u64,
        used_mb: u64,
    },
    ImageUnreadable,
    ImagePixels {
        width: u32,
        height: u32,
        max_side: u32,
        max_megapixels: u64,
    },
    NotJpegOrPng,
    ReceiptRequired,
    ReceiptTooLarge,
    ReceiptUploadTooLarge,
    ExpectedMultipart,
    /// A multipart body that cannot be read; the parser's words.
    MalformedUpload(String),
    /// A body that is no multipart/form-data upload at all.
    NotAnUpload,
    /// An import's bank file over its limit (in MiB).
    FileTooLarge(usize),
    NotAnId,
    NotJson,

    // The AI provider, for the task the person asked of it. The cause
    // (connection refused, the provider's status, what the answer lacked)
    // goes to the log only.
    /// No provider is configured (`AI_API_KEY` is not set).
    AiOff(AiTask),
    /// The user's per-minute limit of the task, and the seconds to wait.
    AiBusy {
        task: AiTask,
        per_minute: u32,
        wait: i64,
    },
    /// The provider cannot be reached, answered an error or too late.
    AiUnavailable(AiTask),
    /// The model answered, but with nothing usable.
    AiUnusable(AiTask),
    /// The configured model does not take tools (the assistant's lookups).
    AiNoTools,

    // Banks over FinTS (docs/bank-sync.md). The bank's return code and the
    // technical cause go to the log only.
    /// A bank address the policy refuses (for the field `url`).
    BankAddress(BankAddressProblem),
    /// What a dialog with the bank ended in.
    Bank(BankFailure),
    /// A bank connection's request that cannot be done now or so.
    BankSync(BankSyncProblem),

    // Signing in.
    NotAnEmail,
    PasswordTooShort,
    NotYourPassword,
    AlreadyRegistered,
    /// An address mixing alphabets that look alike.
    MixedAlphabets,
    BadCredentials,
    RegistrationClosed,
    AccountDisabled,
    /// Only single sign-on is offered; the configured label of its button,
    /// if any.
    PasswordSignInOff(Option<String>),
    TooManySignIns {
        /// Counted for the address (else for the client's network).
        address: bool,
        minutes: i64,
    },
    /// Too many new accounts in the last minute, from the client's network
    /// (`network`) or in all; a slot frees in `seconds`.
    TooManyRegistrations {
        network: bool,
        seconds: i64,
    },
    SingleSignOnOnly,
    InvalidOrExpired,
    ChallengeGone,
    NotACode,
    NotCurrentCode,
    TwoFactorOn,
    TwoFactorOnTurnOffFirst,
    SetupNotStarted,
    SetupExpired,
    SetupChanged,
    SecretUnreadable,
    NoSuchUser,
    NameAFile,

    // The staged import.
    NotCsv,
    /// A file that is not a bank export at all, and what it is.
    NotABankFile(FileKind),
    NoRows,
    /// Rows that hold neither a readable date nor a readable amount, so
    /// no booking: how many there are.
    RowsUnreadable(usize),
    TooManyRows(usize),
    FieldTooLong {
        kib: usize,
        line: usize,
    },
    /// A header that fits no layout: its first columns (at most
    /// [`LAYOUT_COLUMNS_OFFERED`], each cut short), offered for a mapping,
    /// and how many it has in all. Its words name the first
    /// [`LAYOUT_COLUMNS_NAMED`].
    UnknownLayout {
        columns: Vec<String>,
        total: usize,
    },
    /// A statement file (its format's code) with a value longer than `kib`
    /// KiB from this line on.
    StatementFieldTooLong {
        kind: &'static str,
        kib: usize,
        line: usize,
    },
    /// More of a part than a bank file has, found by this line; the most.
    TooMuchInFile {
        part: Part,
        most: usize,
        line: usize,
    },
    /// Statements of more accounts than this.
    TooManyAccounts(usize),
    /// Reading the file took longer than this many seconds.
    ReadTooLong(u64),
    /// Reading the file was called off before its end.
    ReadCalledOff,
    /// A request body stopped arriving before its end (408).
    BodyLate,
    /// A request body larger than this many MiB (413).
    BodyTooLarge(usize),
    /// Other files kept the readers busy for longer than this many seconds.
    ReadersBusy(u64),
    /// A statement file (its format's code) unreadable from this line on.
    StatementUnreadable {
        kind: &'static str,
        line: usize,
    },
    /// A file with statements of these accounts, and none chosen.
    StatementAccounts(Vec<String>),
    /// The account asked for is not among these of the file.
    AccountNotInFile(Vec<String>),
    /// `setBalance` for a file in another currency than the account.
    BalanceCurrency {
        file: String,
        account: String,
    },
    DecimalSeparator,
    DatePattern,
    NoSuchLine(usize),
    NoSuchColumn {
        name: String,
        found: Vec<String>,
    },
    NoSuchIndex {
        index: usize,
        count: usize,
    },
    RequiredWithDebit,
    RequiredWithCredit,
    AmountOrDebitAndCredit,
    CsvOrBase64,
    OpenImports(usize),
    RowStatus,
    DecidableStatus,
    ImportOrSkip,
    RowOrAll,
    UnreadableRow,
    /// A category for a row of money in (it becomes an income, which has none).
    MoneyInHasNoCategory,
    ConflictsOpen(usize),
    ImportBusy,
    ImportInterrupted,
    /// Another batch of the same account is being confirmed, or its
    /// confirm was interrupted: its rows may be the same money.
    OtherImportConfirming,
    AlreadyConfirmed,
    Confirmed,
    Cancelled,
    NotConfirmedImport,
    /// A second export of the same user while the first is being made.
    ExportRunning,

    // The assistant.
    NotAConversation,
    UserOrAssistant,
    LastMessageUsers,
    MaxMessages(usize),
    AccountOrName,
    NoAccountNamed {
        wanted: String,
        accounts: Vec<String>,
    },
    SeveralAccounts {
        wanted: String,
        accounts: Vec<String>,
    },
    UnknownTool {
        name: String,
        tools: Vec<String>,
    },
    NotPreviewable {
        name: String,
        read_tool: bool,
        tools: Vec<String>,
    },
    NotAWriteTool(String),
    ProposalSaved(Option<String>),
    ProposalDiscarded,

    // Loading an export.
    NotAnExport,
    NoDataJson,
    HasRecords,
    TooManyFiles(usize),
    Damaged,
    OtherFormat,
    NewerVersion,
    CannotRead,
    Checksum,
    ExpandsTimes(u64),
    ExpandsTo(u64),
    ArchiveExpandsTo(u64),
    DanglingRecord {
        table: String,
        parent: String,
    },
    UnloadableRecord(String),
}

/// Why a bank address is refused (`services::fints::address`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankAddressProblem {
    /// Not an absolute URL, or with user information or a fragment.
    NotAUrl,
    /// Not `https://` (plain http only to a local address, when allowed).
    NotHttps,
    /// A loopback, private or otherwise non-public host.
    Local,
}

/// Why a request about a bank connection is refused (docs/bank-sync.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankSyncProblem {
    /// A sync or a connect of the connection runs or waits for a TAN.
    Busy,
    /// `chooseTanMethod` or `sendTan` while nothing waits for it.
    NotWaiting,
    /// The bank table has no FinTS address for the bank: `url` is needed.
    UrlNeeded,
    /// Automatic sync asked for without a saved PIN.
    AutoSyncNeedsPin,
    /// A bank account linked to an account of another currency (the bank
    /// account's).
    Currency(String),
    /// No PIN given and none saved (`syncBank`).
    PinNeeded,
    /// Not a German bank code (eight digits).
    BankCode,
}

/// A failed dialog with a bank, as a person reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankFailure {
    /// The bank refused the PIN (9910, 9931, 9942 …).
    WrongPin,
    /// The bank has locked the online access (3938 …).
    Locked,
    /// The TAN was wrong or has expired.
    TanRejected,
    /// The bank does not accept the server's product registration (9078, 9952).
    ProductRefused,
    /// The server has no product registration (`CASHKEEPER_FINTS_PRODUCT_ID`).
    ProductIdMissing,
    /// The bank cannot be reached (connection, TLS, an HTTP error).
    Unreachable,
    /// The bank did not answer within the time of a request.
    Timeout,
    /// The approval in the banking app was not given in time.
    ApprovalTimedOut,
    /// Another refusal, with the bank's own words (trimmed, shortened).
    Refused { text: String },
    /// The bank's answer cannot be read.
    Unreadable,
    /// The bank does not offer statements or balances over FinTS.
    NotOffered,
    /// The chosen TAN method is not one the bank offers.
    UnknownTanMethod,
}

impl BankFailure {
    /// Every failure without the bank's words, each stored by its
    /// [`code`](BankFailure::code) alone: what [`BankFailure::from_code`]
    /// reads back and what the wording tests go through.
    pub const PLAIN: [BankFailure; 11] = [
        BankFailure::WrongPin,
        BankFailure::Locked,
        BankFailure::TanRejected,
        BankFailure::ProductRefused,
        BankFailure::ProductIdMissing,
        BankFailure::Unreachable,
        BankFailure::Timeout,
        BankFailure::ApprovalTimedOut,
        BankFailure::Unreadable,
        BankFailure::NotOffered,
        BankFailure::UnknownTanMethod,
    ];

    /// The code a connection's last error is stored as; its words are
    /// made when it is read, in the reader's language.
    pub fn code(&self) -> &'static str {
        match self {
            BankFailure::WrongPin => "wrong_pin",
            BankFailure::Locked => "locked",
            BankFailure::TanRejected => "tan_rejected",
            BankFailure::ProductRefused => "product_refused",
            BankFailure::ProductIdMissing => "product_id_missing",
            BankFailure::Unreachable => "unreachable",
            BankFailure::Timeout => "timeout",
            BankFailure::ApprovalTimedOut => "approval_timed_out",
            BankFailure::Refused { .. } => "refused",
            BankFailure::Unreadable => "unreadable",
            BankFailure::NotOffered => "not_offered",
            BankFailure::UnknownTanMethod => "unknown_tan_method",
        }
    }

    /// The bank's own words kept with the code ([`BankFailure::Refused`]).
    pub fn bank_text(&self) -> Option<&str> {
        match self {
            BankFailure::Refused { text } => Some(text),
            _ => None,
        }
    }

    /// The failure stored as `code` (and the bank's words); an unknown
    /// code reads as a refusal.
    pub fn from_code(code: &str, text: Option<&str>) -> BankFailure {
        BankFailure::PLAIN
            .iter()
            .find(|f| f.code() == code)
            .cloned()
            .unwrap_or_else(|| BankFailure::Refused {
                text: text.unwrap_or_default().to_string(),
            })
    }

    /// A wrong or locked PIN: the saved PIN is dropped and automatic sync
    /// stopped, so the bank's counter never locks the user out.
    pub fn is_pin_problem(&self) -> bool {
        matches!(self, BankFailure::WrongPin | BankFailure::Locked)
    }
}

/// What a person asked the AI provider to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AiTask {
    /// Read a receipt photo (`POST /api/receipt-scan`).
    Receipt,
    /// Answer in the assistant's chat (`POST /api/chat`).
    Assistant,
    /// Suggest categories and duplicates for an import.
    ImportSuggestions,
}

/// What a limit of records counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Accounts,
    Categories,
    Recurring,
    DailyExpenses,
    ApiTokens,
    Documents,
}

/// The records that still use an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    RecurringExpenses,
    DailyExpenses,
    Incomes,
    Transfers,
}

/// A part of a bank file whose number is bounded ([`Reason::TooMuchInFile`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The cells of one line of a CSV file.
    Fields,
    /// The lines of one MT940 field or booking.
    Lines,
    /// XML elements held besides the booking being read.
    Elements,
    /// SGML tags open at once.
    OpenTags,
}

/// What a file that is not a bank export was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Pdf,
    Image,
    /// A ZIP archive: an Excel (`.xlsx`) or OpenDocument sheet is one.
    Zip,
}
