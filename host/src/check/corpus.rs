//! The provider-neutral corpus built into the binary (`check/corpus/*.json`, the case format of
//! docs/check.md): what any correct adapter makes of a response from its status, headers and a body
//! that says nothing provider-specific. Each case notes where its form comes from. Also the case
//! files of the built-in guests, so `dsh-host check --builtin NAME` proves something
//! provider-specific for them too.

use super::cases::CaseText;

/// The corpus files, by name.
const CORPUS: &[(&str, &str)] = &[
    ("status-only.json", include_str!("corpus/status-only.json")),
    ("retry-after.json", include_str!("corpus/retry-after.json")),
    ("html-pages.json", include_str!("corpus/html-pages.json")),
    ("bodies.json", include_str!("corpus/bodies.json")),
    ("streams.json", include_str!("corpus/streams.json")),
];

/// The corpus, each file named `corpus/NAME.json` in reports.
pub fn corpus() -> Vec<CaseText> {
    CORPUS
        .iter()
        .map(|(name, text)| CaseText {
            origin: format!("corpus/{name}"),
            text: text.to_string(),
        })
        .collect()
}

/// The case file of a built-in guest (its own recorded cases), named by its path in the repository.
pub fn builtin_guest_cases(name: &str) -> Option<CaseText> {
    let (origin, text) = match name {
        "openai" => (
            "guests/openai/check-cases.json",
            include_str!("../../../guests/openai/check-cases.json"),
        ),
        "anthropic" => (
            "guests/anthropic/check-cases.json",
            include_str!("../../../guests/anthropic/check-cases.json"),
        ),
        "gemini" => (
            "guests/gemini-native/check-cases.json",
            include_str!("../../../guests/gemini-native/check-cases.json"),
        ),
        "llm-retry" => (
            "guests/llm-retry/check-scenarios.json",
            include_str!("../../../guests/llm-retry/check-scenarios.json"),
        ),
        "compaction-basic" => (
            "guests/compaction-basic/check-scenarios.json",
            include_str!("../../../guests/compaction-basic/check-scenarios.json"),
        ),
        _ => return None,
    };
    Some(CaseText {
        origin: origin.to_string(),
        text: text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::cases::parse_adapter_cases;

    #[test]
    fn every_corpus_case_parses_and_says_where_it_comes_from() {
        let mut count = 0;
        for file in corpus() {
            let parsed = parse_adapter_cases(&file).unwrap_or_else(|e| panic!("{e:#}"));
            for case in &parsed.cases {
                assert!(
                    !case.note.trim().is_empty(),
                    "{}: {} has no note",
                    file.origin,
                    case.name
                );
                assert!(case.response.is_some(), "{}: {}", file.origin, case.name);
                assert!(
                    !case
                        .expect
                        .accepted_codes()
                        .unwrap_or_default()
                        .contains(&"ADAPTER_FAULT".to_string())
                );
                count += 1;
            }
        }
        assert!(count >= 40, "{count} cases");
    }

    #[test]
    fn every_built_in_guest_has_cases() {
        for name in crate::guests::BUILTIN_ADAPTERS {
            let file = builtin_guest_cases(name).unwrap();
            parse_adapter_cases(&file).unwrap_or_else(|e| panic!("{e:#}"));
        }
        for name in crate::guests::BUILTIN_LISTENERS {
            let file = builtin_guest_cases(name).unwrap();
            crate::check::cases::parse_listener_cases(&file).unwrap_or_else(|e| panic!("{e:#}"));
        }
    }
}
