//! The subcommands of the `linear-layout` command, one module each.

pub mod cost;
pub mod heuristics;
pub mod layout_arg;
pub mod lower;
pub mod show;
pub mod targets;
pub mod tour;
