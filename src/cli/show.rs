//! `linear-layout show LAYOUT --shape …`: a layout for people — Triton's tensor and hardware
//! views, the bases ready to paste, and a picture (SVG / HTML).

use std::io::Write as _;
use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use linear_layout::view::{self, PictureOptions};

use super::layout_arg::{LAYOUT_HELP, load, parse_shape};

/// Arguments of the `show` subcommand.
#[derive(clap::Args)]
pub struct Args {
    #[arg(help = LAYOUT_HELP, value_name = "LAYOUT")]
    pub layout: String,
    /// The tensor shape, e.g. 128x64 (required for an encoding; a JSON layout or a tensor type
    /// carries its own).
    #[arg(long, value_name = "DxD…")]
    pub shape: Option<String>,
    /// Print the hardware view (instead of the tensor view): per warp and register, the
    /// element each lane holds (shared layouts: the element at each offset), exactly as
    /// Triton's get_distributed_view(True) / get_shared_view(True).
    #[arg(long)]
    pub hw: bool,
    /// Print the bases (instead of the tensor view; before the hardware view with --hw):
    /// Triton's printing, then as a #ttg.linear / #ttg.shared_linear attribute and as Gluon
    /// DistributedLinearLayout / SharedLinearLayout arguments.
    #[arg(long)]
    pub bases: bool,
    /// Write a picture as an SVG file ('-': standard output): cells coloured by warp and
    /// shaded by lane (by warp alone past 1,024 elements), labelled lane:register; for shared
    /// layouts the offset and bank of each element. With --svg / --html and neither --hw nor
    /// --bases, the tensor view is not printed.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the same picture as a self-contained HTML page ('-': standard output).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Element width in bits, for the banks of a shared layout's picture.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub bits: u32,
    /// Number of 4-byte shared-memory (LDS) banks, for a shared layout's picture.
    #[arg(long, default_value_t = 32, value_parser = clap::builder::PossibleValuesParser::new(["32", "64"]).map(|s| s.parse::<u32>().unwrap_or(32)))]
    pub banks: u32,
}

/// Runs the subcommand and returns its standard output.
pub fn run(args: &Args) -> Result<String, String> {
    let shape = args.shape.as_deref().map(parse_shape).transpose()?;
    let loaded = load(&args.layout, shape.as_deref(), "LAYOUT")?;
    let l = &loaded.layout;
    let mut out = String::new();
    if args.bases {
        out.push_str("Triton's LinearLayout:");
        out.push_str(&l.to_string());
        out.push_str("\n\nAs an attribute, and as Gluon arguments:\n");
        out.push_str(&view::pasteable_bases(l));
        if !l.is_surjective() && !view::is_shared(l) {
            out.push_str(
                "note: some elements are held by no thread, so Triton rejects this #ttg.linear \
                 (its layouts must be surjective)\n",
            );
        }
    }
    if args.hw {
        if args.bases {
            out.push('\n');
        }
        out.push_str(&view::hardware_view(l).map_err(|e| e.to_string())?);
    }
    let files = args.svg.is_some() || args.html.is_some();
    if !args.bases && !args.hw && !files {
        out.push_str(&view::tensor_view(l).map_err(|e| e.to_string())?);
    }
    let opts = PictureOptions {
        title: loaded.title.clone(),
        bits: args.bits,
        banks: args.banks,
        padding: loaded.padding.clone(),
    };
    let mut files = Vec::new();
    if let Some(p) = &args.svg {
        files.push((p, view::svg(l, &opts).map_err(|e| format!("--svg: {e}"))?));
    }
    if let Some(p) = &args.html {
        files.push((p, view::html(l, &opts).map_err(|e| format!("--html: {e}"))?));
    }
    for (p, doc) in files {
        if p.as_os_str() == "-" {
            out.push_str(&doc);
        } else {
            std::fs::write(p, doc).map_err(|e| format!("{}: {e}", p.display()))?;
            let _ = writeln!(std::io::stderr(), "wrote {}", p.display());
        }
    }
    Ok(out)
}
