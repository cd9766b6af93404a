//! Triton's tensor encodings as [`LinearLayout`](crate::linear::LinearLayout)s.
