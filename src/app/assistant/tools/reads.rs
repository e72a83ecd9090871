//! The read tools: each one row of [`READ_TOOLS`] (name, description,
//! parameters, what it runs), each running the very report the pages, the
//! actions and the REST API use, so the assistant never has a number of
//! its own. Amounts are decimal strings with two decimals and the base
//! currency named.

use super::arguments::Args;
use super::values::{amt, opt_amt, pct};
use crate::app::reports::payments::{months, Source};
use crate::app::reports::{dashboard, forecasts, reserves, subscriptions};
use crate::clock::timestamp;
use crate::domain::rates::Rates;
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::i18n::assistant::Looked;
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::expenses::Expense;
use crate::store::insights;
use crate::store::table;
use crate::store::users::User;
use chrono::{Datelike, NaiveDate};
use rusqlite::Connection;
use serde_json::{json, Value};
use std::sync::Arc;

/// Payments `list_payments` answers at most.
pub const PAYMENTS_MAX: usize = 200;

/// A read tool's parameter: name, JSON type, description.
pub(super) type Param = (&'static str, &'static str, &'static str);

/// What a read tool runs with besides its arguments.
pub(super) struct Asked<'a> {
    pub(super) c: &'a Connection,
    pub(super) user: &'a User,
    pub(super) rates: &'a Arc<Rates>,
    pub(super) today: NaiveDate,
    pub(super) now: &'a str,
}

/// How a read tool runs (on the connection of [`Asked`]), answering its
/// result for the model and the line for the person.
pub(super) type ReadFn = fn(&Asked<'_>, &Args) -> Result<(Value, Looked)>;

/// One read tool: name, description, parameters, the required ones, and
/// what it runs.
pub(super) type ReadTool = (
    &'static str,
    &'static str,
    &'static [Param],
    &'static [&'static str],
    ReadFn,
);

/// The parameters of the tools that read one month.
const MONTH_PARAMETERS: &[Param] = &[
    ("year", "integer", "e.g. 2026; default: this year"),
    (
        "month",
        "integer",
        "1-12; default: this month (January when only year is given)",
    ),
];

/// The read tools, one row each. A new read tool is one more row.
pub(super) const READ_TOOLS: &[ReadTool] = &[
    (
        "get_summary",
        "The user's month at a glance, in the base currency: total assets, the cashflow view \
         (income and expenses due in the month, surplus, change against the previous month in \
         percent), the reserve view (recurring items spread by their monthly equivalent: a \
         yearly 1200 counts 100 a month), recurring fixed costs and subscriptions per month, \
         and the next payments due. Defaults to the current month.",
        MONTH_PARAMETERS,
        &[],
        get_summary,
    ),
    (
        "list_accounts",
        "The user's accounts (ids, names, type checking/savings/etf, currency) with their \
         balance, and the balance converted to the base currency. The total of all accounts \
         is totalAssets in get_summary.",
        &[],
        &[],
        list_accounts,
    ),
    (
        "list_payments",
        "Every payment from one day through another, both inclusive, at most one year apart: \
         each due date of recurring expenses and incomes and each one-time expense, with its \
         amount in the base currency. At most 200; truncated is true when there were more. \
         For a month's totals use get_summary.",
        &[
            ("from", "string", "first day, YYYY-MM-DD"),
            ("to", "string", "last day, YYYY-MM-DD"),
        ],
        &["from", "to"],
        list_payments,
    ),
    (
        "search",
        "Finds the user's accounts, categories, recurring and one-time expenses, incomes and \
         transfers by name, notes or merchant; best matches first, 50 a page (`pages` says how \
         many). A recurring hit has its `frequency` and `amountToday` (what it costs now; \
         `amount` is its latest price, which may start later); `oneTimeSums` adds up the \
         one-time entries per kind and currency: recurring items are never added up. Use it to \
         find the id of a record or a category.",
        &[
            ("query", "string", "words to look for"),
            ("page", "integer", "the page of hits, from 1 (default 1)"),
        ],
        &["query"],
        run_search,
    ),
    (
        "get_account_forecast",
        "An account's forecast for the coming months (from next month), in the base currency: \
         per month income, expenses, transfers in and out, net, and for savings and ETF \
         accounts the projected balance. Name the account by accountId or accountName.",
        &[
            ("accountId", "string", "the account's id"),
            (
                "accountName",
                "string",
                "the account's name, or a unique part of it",
            ),
            ("months", "integer", "1-24; default 12"),
        ],
        &[],
        account_forecast,
    ),
    (
        "get_reserve_plan",
        "What to set aside each month for the quarterly, half-yearly and yearly expenses, \
         what each pot should hold today, what it holds, what it misses and what it holds \
         beyond that (one pot's surplus fills no other's gap); base currency.",
        &[],
        &[],
        reserve_plan,
    ),
    (
        "list_insights",
        "The user's current insights (unusual spending, budget warnings, saving \
         opportunities, subscription alerts), newest first.",
        &[],
        &[],
        list_insights,
    ),
    (
        "spending_by_category",
        "The expenses of one month per category (cashflow view, base currency), largest \
         first, with what each category's budget makes available that month, if it has one. \
         Defaults to the current month.",
        MONTH_PARAMETERS,
        &[],
        spending_by_category,
    ),
    (
        "list_budgets",
        "The budgets of one month per category (base currency): the budget, what is \
         available with rollover, what was spent, what remains (negative when overspent), \
         percent spent and status ok/near/over. Answers \"how much may I still spend on \
         groceries this month\". Defaults to the current month.",
        MONTH_PARAMETERS,
        &[],
        list_budgets,
    ),
    (
        "list_subscriptions",
        "The recurring expenses marked as subscriptions, with what each costs a month (at \
         today's price) and in the next twelve months (each payment at the price of its day, \
         so a scheduled price change counts), whether it is active today, and both totals of \
         the active ones in the base currency.",
        &[],
        &[],
        list_subscriptions,
    ),
    (
        "list_contracts",
        "The recurring expenses with contract terms (a phone, the gym, an insurance): the end \
         of the current term, how long each renewal runs, the notice, cancelBy (the last day to \
         cancel; the term moves on by the renewal once it passed) and cancelledTo (the end a \
         recorded cancellation reaches), nearest deadline first, with the terms in the user's \
         words in said.",
        &[],
        &[],
        list_contracts,
    ),
];

/// The read tool of this name, if it is one.
pub(super) fn find(name: &str) -> Option<ReadFn> {
    READ_TOOLS.iter().find(|t| t.0 == name).map(|t| t.4)
}

/// Runs a read tool: its result and the line for the person. Within the
/// read budget of every read action (`Db::read`), so a question cannot hold
/// a connection longer than a page could.
pub(super) async fn read(
    state: &AppState,
    user: &User,
    run: ReadFn,
    args: Args,
) -> Result<(Value, Looked)> {
    let (rates, today, now) = (
        state.rates.current(),
        state.clock.today(),
        timestamp(state.clock.now()),
    );
    let user = user.clone();
    state
        .db
        .read(move |c| {
            let asked = Asked {
                c,
                user: &user,
                rates: &rates,
                today,
                now: &now,
            };
            run(&asked, &args)
        })
        .await
}

pub(super) fn month_view(v: &dashboard::MonthView) -> Value {
    let mut view = json!({
        "income": amt(v.income),
        "expenses": amt(v.expenses),
        "surplus": amt(v.surplus),
        "incomeChangePct": pct(v.income_change_pct),
        "expensesChangePct": pct(v.expenses_change_pct),
    });
    // As the dashboard words it (`money::is_much_more`): against a month
    // of next to nothing the percent is no figure to quote.
    for (key, change) in [
        ("incomeChange", v.income_change_pct),
        ("expensesChange", v.expenses_change_pct),
    ] {
        if change.is_some_and(crate::domain::money::is_much_more) {
            view[key] = json!("much more than last month (do not quote the percent)");
        }
    }
    view
}

/// `get_summary`: the dashboard of a month (`reports::dashboard`, as `getDashboard`).
pub(super) fn get_summary(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let first = args.month(today)?;
    let d = dashboard::dashboard(c, user, rates, first, today)?;
    let upcoming: Vec<Value> = d
        .upcoming
        .iter()
        .map(|p| json!({"date": p.date, "type": p.kind, "name": p.name, "amount": amt(p.amount)}))
        .collect();
    let result = json!({
        "currency": d.currency,
        "year": d.year,
        "month": d.month,
        "totalAssets": amt(d.total_assets),
        "cashflow": month_view(&d.cashflow),
        "reserve": month_view(&d.reserve),
        "recurring": {
            "fixedCostsMonthly": amt(d.recurring.fixed_costs_monthly),
            "fixedCostsCount": d.recurring.fixed_costs_count,
            "subscriptionsMonthly": amt(d.recurring.subscriptions_monthly),
            "subscriptionsCount": d.recurring.subscriptions_count,
        },
        "upcoming": upcoming,
    });
    Ok((
        result,
        Looked::Summary {
            year: d.year,
            month: d.month,
        },
    ))
}

/// `list_accounts`: the accounts with their balance in the base currency
/// (`Rates::to_base`, as `/api/v1/accounts` converts it).
pub(super) fn list_accounts(a: &Asked<'_>, _: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates) = (a.c, a.user, a.rates);
    let accounts: Vec<Value> = table::all::<Account>(c, &user.id)?
        .into_iter()
        .map(|a| {
            let in_base = rates.to_base(a.balance.0, &a.currency, &user.base_currency);
            json!({
                "id": a.id,
                "name": a.name,
                "type": a.kind,
                "currency": a.currency,
                "balance": amt(a.balance),
                "balanceInBase": amt(in_base),
            })
        })
        .collect();
    Ok((
        json!({"currency": user.base_currency, "accounts": accounts}),
        Looked::Accounts,
    ))
}

/// `list_payments`: `reports::payments::Source` a month at a time (as
/// `/api/v1/payments`), stopping after [`PAYMENTS_MAX`].
pub(super) fn list_payments(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates) = (a.c, a.user, a.rates);
    let (from, to) = (args.date("from")?, args.date("to")?);
    if to < from {
        return Err(Error::invalid("to", Reason::NotBefore("from")));
    }
    if (to - from).num_days() > crate::app::reports::payments::MAX_SPAN_DAYS {
        return Err(Error::invalid("to", Reason::AtMostAYear));
    }
    let source = Source::load(c, user, rates)?;
    let mut payments = Vec::new();
    let mut truncated = false;
    'months: for (first, last) in months(from, to) {
        for p in source.between(c, first, last)? {
            if payments.len() == PAYMENTS_MAX {
                truncated = true;
                break 'months;
            }
            let mut v = json!({
                "id": p.id, "date": p.date, "type": p.kind, "name": p.name,
                "amount": amt(p.amount),
            });
            if p.original_currency != source.currency() {
                v["originalAmount"] = amt(p.original_amount);
                v["originalCurrency"] = json!(p.original_currency);
            }
            if let Some(k) = &p.category {
                v["category"] = json!(k.name);
            }
            if p.is_subscription {
                v["isSubscription"] = json!(true);
            }
            payments.push(v);
        }
    }
    Ok((
        json!({
            "currency": source.currency(), "from": from, "to": to,
            "count": payments.len(), "truncated": truncated, "payments": payments,
        }),
        Looked::Payments { from, to },
    ))
}

/// `search`: `app::search::found`, as the `search` action and the search
/// page: a page of hits (a recurring one with its rhythm and today's
/// amount), how many there are, and the one-time entries summed per kind
/// and currency (recurring items are never added up).
pub(super) fn run_search(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user) = (a.c, a.user);
    // As the `search` action reads its query and page.
    let query = crate::app::search::query(&args.text("query")?.unwrap_or_default())?;
    let page =
        crate::app::search::page(args.int("page", 1..=crate::app::search::PAGE_MAX as i64)?)?;
    let found = crate::app::search::found(c, &user.id, &query, page, a.today)?;
    let hits: Vec<Value> = found
        .hits
        .iter()
        .map(|h| {
            let mut v = json!({
                "kind": h.kind, "id": h.id, "name": h.name, "date": h.date,
                "amount": opt_amt(h.amount), "currency": h.currency,
            });
            if h.is_recurring() {
                v["frequency"] = json!(h.frequency);
                v["amountToday"] = opt_amt(h.amount_today);
            }
            v
        })
        .collect();
    let sums: Vec<Value> = found
        .sums
        .iter()
        .map(|s| json!({"kind": s.kind, "currency": s.currency, "amount": amt(s.amount), "count": s.count}))
        .collect();
    let looked = Looked::Search {
        query: query.clone(),
    };
    Ok((
        json!({
            "query": query, "hits": hits, "total": found.total, "page": found.page,
            "pages": found.pages, "recurring": found.recurring, "oneTimeSums": sums,
        }),
        looked,
    ))
}

/// The account a call names: by `accountId`, else by `accountName` (the
/// same name without regard to case, else the one account whose name
/// contains it). An `accountId` that is no id is tried as a name, since
/// models mix the two up.
pub(super) fn find_account(c: &Connection, user: &User, args: &Args) -> Result<Account> {
    let accounts = table::all::<Account>(c, &user.id)?;
    let id = args.text("accountId")?;
    if let Some(a) = id
        .as_ref()
        .and_then(|id| accounts.iter().find(|a| a.id == *id))
    {
        return Ok(a.clone());
    }
    let (field, wanted) = match (args.text("accountName")?, id) {
        (Some(name), _) => ("accountName", name),
        (None, Some(id)) => ("accountId", id),
        (None, None) => return Err(Error::invalid("accountId", Reason::AccountOrName)),
    };
    let lower = wanted.to_lowercase();
    let exact: Vec<&Account> = accounts
        .iter()
        .filter(|a| a.name.to_lowercase() == lower)
        .collect();
    let found = if exact.is_empty() {
        accounts
            .iter()
            .filter(|a| a.name.to_lowercase().contains(&lower))
            .collect()
    } else {
        exact
    };
    let names = |list: &[&Account]| list.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    match found[..] {
        [one] => Ok(one.clone()),
        [] => {
            let all: Vec<&Account> = accounts.iter().collect();
            Err(Error::invalid(
                field,
                Reason::NoAccountNamed {
                    wanted: wanted.to_string(),
                    accounts: names(&all),
                },
            ))
        }
        _ => Err(Error::invalid(
            field,
            Reason::SeveralAccounts {
                wanted: wanted.to_string(),
                accounts: names(&found),
            },
        )),
    }
}

/// `get_account_forecast`: `reports::forecasts::for_account`, as
/// `getAccountForecast`.
pub(super) fn account_forecast(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let months = args.int("months", 1..=24)?.unwrap_or(12) as u32;
    let account = find_account(c, user, args)?;
    let outlook = forecasts::for_account(c, user, rates, &account.id, months, today)?
        .ok_or(Error::NotFound)?;
    let f = outlook.forecast;
    let monthly: Vec<Value> = f
        .monthly
        .iter()
        .map(|m| {
            json!({
                "year": m.year, "month": m.month, "income": amt(m.income),
                "expenses": amt(m.expenses), "transfersIn": amt(m.transfers_in),
                "transfersOut": amt(m.transfers_out), "net": amt(m.net),
                "balance": opt_amt(m.balance),
            })
        })
        .collect();
    let a = outlook.account;
    let result = json!({
        "account": {
            "id": a.id, "name": a.name, "type": a.kind, "currency": a.currency,
            "balance": amt(a.balance), "balanceInBase": amt(outlook.balance_in_base),
        },
        "currency": user.base_currency,
        "months": f.months,
        "isCumulative": f.is_cumulative,
        "projectedBalance": opt_amt(f.projected_balance),
        "monthly": monthly,
    });
    Ok((
        result,
        Looked::Forecast {
            account: a.name.clone(),
        },
    ))
}

/// `get_reserve_plan`: `reports::reserves::plan`, as `getReservePlan`.
pub(super) fn reserve_plan(a: &Asked<'_>, _: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let p = reserves::plan(c, user, rates, today)?;
    let entries: Vec<Value> = p
        .entries
        .iter()
        .map(|e| {
            json!({
                "expenseId": e.expense_id, "name": e.name, "frequency": e.frequency.code(),
                "amount": amt(e.amount), "currency": e.currency,
                "amountInBase": amt(e.amount_in_base), "nextDueDate": e.next_due_date,
                "monthlyAmount": amt(e.monthly_amount), "targetToday": amt(e.target_today),
                "pot": amt(e.pot), "gap": amt(e.gap), "ahead": amt(e.ahead),
            })
        })
        .collect();
    Ok((
        json!({
            "currency": p.currency, "monthlyTotal": amt(p.monthly_total),
            "targetTotal": amt(p.target_total), "potsTotal": amt(p.pots_total),
            "gapTotal": amt(p.gap_total), "aheadTotal": amt(p.ahead_total),
            "entries": entries,
        }),
        Looked::ReservePlan,
    ))
}

/// `list_insights`: `store::insights::current`, as `listInsights`, in the
/// user's language (stored in German; other languages are made from the
/// finding, as the insights page does).
pub(super) fn list_insights(a: &Asked<'_>, _: &Args) -> Result<(Value, Looked)> {
    let (c, user, now) = (a.c, a.user, a.now);
    let l = user.locale;
    let list: Vec<Value> = insights::current(c, &user.id, now, insights::LIMIT)?
        .into_iter()
        .map(|listed| {
            let i = listed.insight;
            let (title, message) = crate::app::insights::words(&i, l);
            json!({
                "id": i.id, "type": i.kind, "severity": i.severity, "title": title,
                "message": message, "createdAt": i.created_at, "isRead": listed.is_read,
            })
        })
        .collect();
    Ok((json!({"insights": list}), Looked::Insights))
}

/// `list_budgets`: `listBudgets` of a month.
pub(super) fn list_budgets(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let first = args.month(today)?;
    let b = crate::app::reports::budgets::budgets(c, user, rates, first, today)?;
    Ok((
        serde_json::to_value(&b).map_err(anyhow::Error::from)?,
        Looked::Budgets {
            year: first.year(),
            month: first.month(),
        },
    ))
}

/// `spending_by_category`: the dashboard's `byCategory` of a month, with
/// each category's budget of that month.
pub(super) fn spending_by_category(a: &Asked<'_>, args: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let first = args.month(today)?;
    let (d, budgets) =
        crate::app::reports::budgets::dashboard_and_budgets(c, user, rates, first, today)?;
    let l = user.locale;
    let categories: Vec<Value> = d
        .by_category
        .iter()
        .map(|s| {
            let name = s
                .category
                .as_ref()
                .map_or(l.texts().uncategorised, |k| k.name.as_str());
            let budget = s.category_id.as_deref().and_then(|id| budgets.of(id));
            json!({
                "categoryId": s.category_id, "name": name, "amount": amt(s.amount),
                "budget": budget.map(|b| amt(b.available)),
            })
        })
        .collect();
    Ok((
        json!({
            "currency": d.currency, "year": d.year, "month": d.month,
            "expenses": amt(d.cashflow.expenses), "categories": categories,
        }),
        Looked::SpendingByCategory {
            year: d.year,
            month: d.month,
        },
    ))
}

/// `list_subscriptions`: `reports::subscriptions`, as `listSubscriptions`.
pub(super) fn list_subscriptions(a: &Asked<'_>, _: &Args) -> Result<(Value, Looked)> {
    let (c, user, rates, today) = (a.c, a.user, a.rates, a.today);
    let s = subscriptions::subscriptions(c, user, rates, today)?;
    let list: Vec<Value> = s
        .subscriptions
        .iter()
        .map(|x| {
            let e = &x.expense;
            json!({
                "id": e.id, "name": e.name, "amount": amt(e.plan.amount), "currency": e.plan.currency,
                "frequency": e.plan.frequency.code(), "startDate": e.plan.start_date, "endDate": e.plan.end_date,
                "monthlyAmount": amt(x.monthly_amount), "yearlyAmount": amt(x.yearly_amount),
                "monthlyInBase": amt(x.monthly_in_base), "active": x.active,
                "termEnd": e.term_end, "cancelBy": e.cancel_by, "cancelledTo": e.cancelled_to,
                "contract": contract_said(e, today, user.locale),
            })
        })
        .collect();
    Ok((
        json!({
            "currency": s.currency, "monthlyTotal": amt(s.monthly_total),
            "yearlyTotal": amt(s.yearly_total), "subscriptions": list,
        }),
        Looked::Subscriptions,
    ))
}

/// The terms of a contract in the user's words, or null without terms.
fn contract_said(e: &Expense, today: NaiveDate, locale: crate::domain::locale::Locale) -> Value {
    use crate::i18n::contracts;
    let deadline = e.deadline(today);
    let Some(state) = contracts::state(locale, deadline.as_ref(), e.cancelled_to) else {
        return Value::Null;
    };
    let notice = e.terms().terms().map(|t| t.notice);
    json!(contracts::terms_line(
        locale,
        e.term_end,
        e.renewal_months,
        notice,
        &state
    ))
}

/// `list_contracts`: the user's recurring expenses with contract terms, as
/// `listExpenses` shows them, nearest deadline first.
pub(super) fn list_contracts(a: &Asked<'_>, _: &Args) -> Result<(Value, Looked)> {
    let (c, user, today) = (a.c, a.user, a.today);
    let mut list: Vec<Expense> = crate::store::expenses::list(c, &user.id, false)?
        .into_iter()
        .map(|e| e.on(today))
        .filter(|e| e.cancelled_to.is_some() || e.deadline(today).is_some())
        .collect();
    list.sort_by_key(|e| (e.cancelled_to.is_some(), e.cancel_by, e.name.clone()));
    let contracts: Vec<Value> = list
        .iter()
        .map(|e| {
            json!({
                "id": e.id, "name": e.name, "amount": amt(e.plan.amount), "currency": e.plan.currency,
                "frequency": e.plan.frequency.code(), "isSubscription": e.is_subscription,
                "termEnd": e.term_end, "renewalMonths": e.renewal_months,
                "noticeMonths": e.notice_months, "noticeDays": e.notice_days,
                "cancelBy": e.cancel_by, "cancelledTo": e.cancelled_to,
                "said": contract_said(e, today, user.locale),
            })
        })
        .collect();
    Ok((
        json!({ "today": today, "contracts": contracts }),
        Looked::Contracts,
    ))
}
