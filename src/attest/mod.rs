//! Hashing, and (with the envelopes work) DSSE envelopes, keys and the recording proxy.

pub mod hash;
