//! The versions of the dsh:llm contract this host loads, and the adaptation of the older ones to
//! the newest, whose types are the host's own ([`crate::wire`]).
//!
//! A component is recognised by the version of the interface it exports (`dsh:llm/adapter@0.2.0`,
//! `dsh:llm/listener@0.1.0`, ...). A guest of the newest version is called directly; a guest of an
//! older version is called through its frozen bindings, and one module per old version converts
//! what crosses: requests and contexts down (refusing what the old version cannot carry), results
//! up (checking what the old version could not type). Any other version is refused at load,
//! naming the versions this host supports (`engine::WorldSpec::check`).

pub mod v0_1;

use std::fmt;

/// A version of the dsh:llm contract this host supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContractVersion {
    /// wit/0.1.0: string codes, text content, `max-tokens`/`temperature` only.
    V0_1,
    /// wit/0.2.0: the host's own types.
    V0_2,
}

impl ContractVersion {
    /// The newest: what new guests are built against.
    pub const NEWEST: ContractVersion = ContractVersion::V0_2;
    /// Every version this host loads, newest first.
    pub const SUPPORTED: [ContractVersion; 2] = [ContractVersion::V0_2, ContractVersion::V0_1];

    /// The version as a package and an export name spell it: `0.2.0`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContractVersion::V0_1 => "0.1.0",
            ContractVersion::V0_2 => "0.2.0",
        }
    }

    /// The version of an export such as `dsh:llm/adapter@0.1.0`, if this host supports it.
    pub fn parse(version: &str) -> Option<ContractVersion> {
        ContractVersion::SUPPORTED
            .into_iter()
            .find(|v| v.as_str() == version)
    }

    /// `dsh:llm@0.2.0 and dsh:llm@0.1.0`, for messages.
    pub fn supported_list() -> String {
        let all: Vec<String> = ContractVersion::SUPPORTED
            .iter()
            .map(|v| format!("dsh:llm@{}", v.as_str()))
            .collect();
        all.join(" and ")
    }
}

impl fmt::Display for ContractVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dsh:llm@{}", self.as_str())
    }
}

/// What a guest says of itself (`info`), whatever its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestInfo {
    pub name: String,
    pub version: String,
}
