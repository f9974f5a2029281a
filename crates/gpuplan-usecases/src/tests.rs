//! Tests of the use cases over an in-memory or temporary database.
