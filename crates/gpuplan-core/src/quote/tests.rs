//! Bills computed by hand, one per rule, against the engine.
