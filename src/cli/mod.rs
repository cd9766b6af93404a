//! The subcommands of the `linear-layout` command, one module each.

pub mod show;
pub mod tour;
