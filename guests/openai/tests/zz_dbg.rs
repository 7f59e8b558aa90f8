use dsh_guest_support::fixtures::head;
#[test]
fn dbg() {
    for (st, b) in [
        (
            429u16,
            r#"{"error":{"type":"proxy_rate_limited","message":"This model type is rate limited to 4 prompts per minute. Please try again in 39 seconds."}}"#,
        ),
        (
            429u16,
            r#"{"error":{"type":"proxy_rate_limited","message":"rate limited"}}"#,
        ),
        (
            429u16,
            r#"{"error":{"message":"This model type is rate limited to 4 prompts per minute. Please try again in 39 seconds."}}"#,
        ),
    ] {
        let f = dsh_guest_openai::classify_failure(&head(st, &[]), b.as_bytes());
        println!(
            "{} {:?} | {}",
            f.code.as_str(),
            f.provider_retry_after_ms,
            f.message
        );
    }
}
