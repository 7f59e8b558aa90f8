//! The corpus figures: `cargo test -p dsh-classification-corpus -- --nocapture` prints them.
//! Tuning must be perfect (the rules were written against it). The held-back providers, never
//! used to write the rules, are measured against issue #12's target of 95%, which they do not
//! reach yet (tests/fixtures/classification/README.md says which cases fail and why); the test
//! holds them at the recorded figure so that a change to the rules cannot lose ground unseen.

use dsh_classification_corpus::{Set, accuracy, report, run};

/// Issue #12: at least 95% on the held-back providers.
const HELD_BACK_TARGET: f64 = 95.0;
/// Held-back cases classified right when the figure was last recorded (the README's table): the
/// floor. Raise it with the README when a change of the rules, made without looking at the
/// held-back failures, lifts the figure. Round 100's first and only run: 52 of 82.
const HELD_BACK_RECORDED: usize = 52;

#[test]
fn classification_report() {
    let tuning = run(Set::Tuning);
    let held_back = run(Set::HeldBack);
    let text = format!(
        "{}{}",
        report(Set::Tuning, &tuning),
        report(Set::HeldBack, &held_back)
    );
    println!("{text}");
    println!(
        "held-back target {HELD_BACK_TARGET}%: {}",
        if accuracy(&held_back) >= HELD_BACK_TARGET {
            "met"
        } else {
            "NOT met"
        }
    );
    assert_eq!(accuracy(&tuning), 100.0, "tuning cases fail:\n{text}");
    let held_back_passed = held_back.iter().filter(|o| o.passed()).count();
    assert!(
        held_back_passed >= HELD_BACK_RECORDED,
        "held-back fell below its recorded {HELD_BACK_RECORDED} cases:\n{text}"
    );
}

#[test]
fn every_case_names_its_source_and_a_canonical_code() {
    for set in [Set::Tuning, Set::HeldBack] {
        for case in dsh_classification_corpus::cases(set) {
            let id = case["id"].as_str().unwrap_or("?");
            let source = case["source"].as_str().unwrap_or("");
            assert!(source.contains("github.com/"), "{id}: source {source:?}");
            let code = case["expected_code"].as_str().unwrap_or("");
            assert!(
                dsh_guest_support::types::FailureCode::parse(code).is_some(),
                "{id}: {code:?} is not a canonical code"
            );
            assert!(
                ["verbatim", "converted", "reconstructed"]
                    .contains(&case["body_form"].as_str().unwrap_or("")),
                "{id}: body_form"
            );
        }
    }
}

#[test]
fn no_provider_is_in_both_halves() {
    let providers = |set| {
        dsh_classification_corpus::cases(set)
            .iter()
            .map(|c| c["provider"].as_str().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (tuning, held_back) = (providers(Set::Tuning), providers(Set::HeldBack));
    assert!(
        tuning.is_disjoint(&held_back),
        "{:?}",
        tuning.intersection(&held_back).collect::<Vec<_>>()
    );
}

/// The built-in adapters share the classification (`dsh_guest_support::classify`): an
/// Anthropic-compatible route of another provider answers in any shape, and Gemini's errors reach
/// the `openai` adapter too through Gemini's OpenAI layer, so every adapter must read every case as
/// the OpenAI one does. Only codes and hints are compared, never expected ones.
#[test]
fn every_built_in_adapter_classifies_every_case_alike() {
    for set in [Set::Tuning, Set::HeldBack] {
        for case in dsh_classification_corpus::cases(set)
            .iter()
            .filter(|c| c["transport"] == "http")
        {
            let head = dsh_guest_support::fixtures::case_head(case);
            let body = case["body"].as_str().unwrap().as_bytes();
            let openai = dsh_guest_openai::classify_failure(&head, body);
            for (adapter, other) in [
                (
                    "anthropic",
                    dsh_guest_anthropic::classify_failure(&head, body),
                ),
                ("gemini", dsh_guest_gemini::classify_failure(&head, body)),
            ] {
                assert_eq!(
                    openai.code, other.code,
                    "{}: openai and {adapter} disagree",
                    case["id"]
                );
                assert_eq!(
                    openai.provider_retry_after_ms, other.provider_retry_after_ms,
                    "{}: {adapter}",
                    case["id"]
                );
            }
        }
    }
}
