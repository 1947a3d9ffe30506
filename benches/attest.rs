//! Envelope verification and recorder overhead (work in progress).
fn main() {}
