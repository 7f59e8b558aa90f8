//! A well-formed component that is not a dsh adapter: the host must name what it exports and what it
//! expected instead.
#![cfg(target_arch = "wasm32")]

wit_bindgen::generate!({
    inline: r#"
        package dsh-test:wrong@0.1.0;
        world greeter {
            export greet: func(name: string) -> string;
        }
    "#,
});

struct Greeter;

impl Guest for Greeter {
    fn greet(name: String) -> String {
        format!("hello {name}")
    }
}

export!(Greeter);
