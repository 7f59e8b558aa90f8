//! Which provider and model answer a client's `model`: pure code, apart from the gateway that uses it.
//!
//! In order: `provider/model` naming a configured provider; the first `[[gateway.routes]]` entry
//! whose `model` (a name, or a glob with `*` and `?`) matches; `[gateway] default_provider` with the
//! model as given. The client's model name is what every response carries.

use crate::config::{GatewayConfig, GatewayRoute};

/// One provider and the model to ask it for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub provider: String,
    pub model: String,
}

/// Where a request goes: the first target, then the fallbacks in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub targets: Vec<Target>,
}

/// Resolves `model`; `None` when nothing routes it (the gateway answers 404 `model_not_found`).
pub fn resolve(
    gateway: &GatewayConfig,
    is_provider: impl Fn(&str) -> bool,
    model: &str,
) -> Option<Plan> {
    if let Some((provider, upstream)) = model.split_once('/')
        && is_provider(provider)
        && !upstream.is_empty()
    {
        return Some(Plan {
            targets: vec![Target {
                provider: provider.into(),
                model: upstream.into(),
            }],
        });
    }
    if let Some(route) = gateway.routes.iter().find(|r| glob_match(&r.model, model)) {
        return Some(plan_of(route, model));
    }
    gateway.default_provider.as_ref().map(|p| Plan {
        targets: vec![Target {
            provider: p.clone(),
            model: model.into(),
        }],
    })
}

fn plan_of(route: &GatewayRoute, model: &str) -> Plan {
    let mut targets = vec![Target {
        provider: route.provider.clone(),
        model: route
            .upstream_model
            .clone()
            .unwrap_or_else(|| model.to_string()),
    }];
    targets.extend(route.fallbacks.iter().filter_map(|f| {
        let (p, m) = f.split_once('/')?;
        Some(Target {
            provider: p.into(),
            model: m.into(),
        })
    }));
    Plan { targets }
}

/// `*` matches any run of characters, `?` one character; everything else itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Iterative matching with one backtrack point: linear for the patterns routes use.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gateway() -> GatewayConfig {
        GatewayConfig {
            default_provider: Some("openai".into()),
            routes: vec![
                GatewayRoute {
                    model: "fast".into(),
                    provider: "openai".into(),
                    upstream_model: Some("gpt-4o-mini".into()),
                    fallbacks: vec!["anthropic/claude-haiku-4-5".into()],
                },
                GatewayRoute {
                    model: "claude-*".into(),
                    provider: "anthropic".into(),
                    upstream_model: None,
                    fallbacks: vec![],
                },
            ],
            ..GatewayConfig::default()
        }
    }

    fn known(p: &str) -> bool {
        matches!(p, "openai" | "anthropic")
    }

    fn targets(model: &str) -> Vec<(String, String)> {
        resolve(&gateway(), known, model)
            .unwrap()
            .targets
            .into_iter()
            .map(|t| (t.provider, t.model))
            .collect()
    }

    #[test]
    fn provider_slash_model_names_the_provider() {
        assert_eq!(
            targets("anthropic/claude-sonnet-4-5"),
            [("anthropic".into(), "claude-sonnet-4-5".into())]
        );
        // A slash that names no provider is part of a model name (OpenRouter's `meta-llama/...`).
        assert_eq!(
            targets("meta-llama/llama-3"),
            [("openai".into(), "meta-llama/llama-3".into())]
        );
    }

    #[test]
    fn routes_match_in_order_with_globs_and_carry_fallbacks() {
        assert_eq!(
            targets("fast"),
            [
                ("openai".into(), "gpt-4o-mini".into()),
                ("anthropic".into(), "claude-haiku-4-5".into())
            ]
        );
        assert_eq!(
            targets("claude-opus-4"),
            [("anthropic".into(), "claude-opus-4".into())]
        );
        assert_eq!(
            targets("gpt-4o"),
            [("openai".into(), "gpt-4o".into())],
            "the default provider"
        );
    }

    #[test]
    fn without_a_default_an_unrouted_model_is_unknown() {
        let g = GatewayConfig {
            default_provider: None,
            ..gateway()
        };
        assert!(resolve(&g, known, "gpt-4o").is_none());
        assert!(resolve(&g, known, "fast").is_some());
    }

    #[test]
    fn globs() {
        for (p, t, m) in [
            ("*", "", true),
            ("*", "abc", true),
            ("a*c", "abbbc", true),
            ("a*c", "abbb", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("*-mini", "gpt-4o-mini", true),
            ("gpt-*-mini", "gpt-4o-mini", true),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob_match(p, t), m, "{p} ~ {t}");
        }
    }
}
