//! Black-box tests: each starts the real router on 127.0.0.1:0 with a fresh
//! temporary data directory and speaks HTTP to it. Outbound peers (SMTP, push
//! services, the AI provider) are real servers the test starts on loopback.

mod actions;
mod api;
mod api_contract;
mod api_docs;
mod assistant;
mod assistant_tools;
mod auth;
mod authz;
mod axe;
mod backups;
mod browser;
mod budget_pages;
mod budgets;
mod cli;
mod crash;
mod documents;
mod everyday;
mod export;
mod export_limits;
mod hardening;
mod helpers;
mod import_corpus;
mod import_load;
mod import_page;
mod imports;
mod jobs;
mod large_replies;
mod lifecycle;
mod money;
mod networth;
mod oidc;
mod operations;
mod pages;
mod plain_words;
mod planning;
mod properties;
mod push;
mod rates;
mod receipts;
mod sessions;
mod smtp;
mod statements;
mod two_factor;
mod upgrade;
