//! Bank sync over FinTS (docs/bank-sync.md): `connectBank`,
//! `chooseTanMethod`, `sendTan`, `getBankConnection`,
//! `listBankConnections`, `linkBankAccount`, `setBankSync`,
//! `forgetBankPin`, `deleteBankConnection`, `syncBank`. Each reads its
//! input and calls `app::bank`; the PIN and the TAN are never answered.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::bank::{self, ConnectInput, SyncSettings};
use crate::app::input::{self, IdInput};
use crate::config::Secret;
use crate::error::{BankSyncProblem, Error, Reason, Result};
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("connectBank", connect);
    r.session("chooseTanMethod", choose_tan_method);
    r.session("sendTan", send_tan);
    r.session("getBankConnection", get);
    r.session("listBankConnections", list);
    r.session("linkBankAccount", link);
    r.session("setBankSync", set_sync);
    r.session("forgetBankPin", forget_pin);
    r.session("deleteBankConnection", delete);
    r.session("syncBank", sync);
}

/// Longest login name, customer id, PIN and TAN taken.
const SECRET_MAX: usize = 100;

/// A German bank code: eight digits (spaces allowed between).
fn bank_code(value: Option<String>) -> Result<String> {
    let code: String = input::text("bankCode", value, 20)?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if code.len() != 8 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(
            "bankCode",
            Reason::BankSync(BankSyncProblem::BankCode),
        ));
    }
    Ok(code)
}

/// A PIN or a TAN: required, not trimmed (a bank may take spaces).
fn secret(field: &'static str, value: Option<String>) -> Result<Secret> {
    let v = value.unwrap_or_default();
    if v.trim().is_empty() {
        return Err(Error::invalid(field, Reason::Required));
    }
    if v.chars().count() > SECRET_MAX {
        return Err(Error::invalid(field, Reason::MaxChars(SECRET_MAX)));
    }
    Ok(Secret::new(v))
}

fn optional_secret(field: &'static str, value: Option<String>) -> Result<Option<Secret>> {
    match value {
        Some(v) if !v.is_empty() => secret(field, Some(v)).map(Some),
        _ => Ok(None),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConnectBody {
    #[serde(default)]
    bank_code: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    login_name: Option<String>,
    #[serde(default)]
    customer_id: Option<String>,
    #[serde(default)]
    pin: Option<String>,
    #[serde(default)]
    save_pin: Option<bool>,
}

async fn connect(ctx: Ctx, body: ConnectBody) -> Result<Reply> {
    let mut checks = input::Checks::default();
    let code = checks.take(bank_code(body.bank_code))?;
    let login = checks.take(input::text("loginName", body.login_name, SECRET_MAX))?;
    let customer = checks.take(input::optional_text(
        "customerId",
        body.customer_id,
        SECRET_MAX,
    ))?;
    let url = checks.take(input::optional_text("url", body.url, 2048))?;
    let pin = checks.take(secret("pin", body.pin))?;
    let input = checks.finish(|| {
        Some(ConnectInput {
            bank_code: code?,
            url: url.filter(|u| !u.is_empty()),
            login_name: login?,
            customer_id: Some(customer?).filter(|c| !c.is_empty()),
            pin: pin?,
            save_pin: body.save_pin.unwrap_or(false),
        })
    })?;
    Reply::data(bank::connect(&ctx.state, ctx.user()?, input).await?)
}

#[derive(Deserialize)]
struct ChooseBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    code: Option<String>,
}

async fn choose_tan_method(ctx: Ctx, body: ChooseBody) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    let code = input::text("code", body.code, 20)?;
    Reply::data(bank::choose_tan_method(&ctx.state, ctx.user()?, id, code).await?)
}

#[derive(Deserialize)]
struct TanBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    tan: Option<String>,
}

async fn send_tan(ctx: Ctx, body: TanBody) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    let tan = secret("tan", body.tan)?;
    Reply::data(bank::send_tan(&ctx.state, ctx.user()?, id, tan).await?)
}

async fn get(ctx: Ctx, body: IdInput) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    Reply::data(bank::get(&ctx.state, ctx.user()?, id).await?)
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(bank::list(&ctx.state, ctx.user()?).await?)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LinkBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    iban: Option<String>,
    #[serde(default)]
    account_id: Option<String>,
}

async fn link(ctx: Ctx, body: LinkBody) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    let iban = input::text("iban", body.iban, 40)?;
    let account = input::optional_id(body.account_id);
    Reply::data(bank::link_account(&ctx.state, ctx.user()?, id, iban, account).await?)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SyncSettingsBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    auto_sync: Option<bool>,
    #[serde(default)]
    auto_confirm: Option<bool>,
    #[serde(default)]
    save_pin: Option<bool>,
    #[serde(default)]
    pin: Option<String>,
}

async fn set_sync(ctx: Ctx, body: SyncSettingsBody) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    let settings = SyncSettings {
        auto_sync: body.auto_sync,
        auto_confirm: body.auto_confirm,
        save_pin: body.save_pin,
        pin: optional_secret("pin", body.pin)?,
    };
    Reply::data(bank::set_sync(&ctx.state, ctx.user()?, id, settings).await?)
}

async fn forget_pin(ctx: Ctx, body: IdInput) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    Reply::data(bank::forget_pin(&ctx.state, ctx.user()?, id).await?)
}

async fn delete(ctx: Ctx, body: IdInput) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    bank::delete(&ctx.state, ctx.user()?, id).await?;
    Reply::data(())
}

#[derive(Deserialize)]
struct SyncBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    pin: Option<String>,
    #[serde(default)]
    from: Option<String>,
}

async fn sync(ctx: Ctx, body: SyncBody) -> Result<Reply> {
    let id = input::required_id(body.id)?;
    let pin = optional_secret("pin", body.pin)?;
    let from = input::optional_date("from", body.from)?;
    Reply::data(bank::sync(&ctx.state, ctx.user()?, id, pin, from).await?)
}
