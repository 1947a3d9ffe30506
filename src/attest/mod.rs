//! Hashing, DSSE execution envelopes, Ed25519 keys and ArkForge receipts.

pub mod dsse;
pub mod envelope;
pub mod hash;
pub mod jcs;
pub mod keys;
pub mod pyjson;
pub mod receipt;
