//! End-to-end tests: the `dsh-host` binary (or the library), the built-in guests and the mock
//! provider together. Each test scripts the mock, runs a real session and checks what the user sees,
//! what the provider received and what the session log holds.

mod support;

mod benchmarks;
mod builtin_gemini;
mod check;
mod cli_people;
mod cli_run;
mod contract;
mod credentials;
mod field;
mod fixtures;
mod gateway;
mod gateway_sdk;
mod guests;
mod guide;
mod hostile_provider;
mod mock_record;
mod new_projects;
mod on_disk;
mod other_languages;
mod postgres;
mod recovery;
mod sandbox;
mod session_log;
mod tools;
