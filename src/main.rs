//! The `linear-layout` command.

use std::io::{self, BufWriter};
use std::process::ExitCode;

use linear_layout::linear::{LayoutError, LinearLayout};

const USAGE: &str = "usage: linear-layout [batch]\n\n  (no command)  a short tour of the layout algebra\n  batch         answer JSON-lines requests on stdin (see the README)";

fn tour() -> Result<(), LayoutError> {
    println!("linear-layout: GPU tensor layouts as linear maps over GF(2)\n");
    // A blocked layout of a 16x16 tensor: 4 consecutive elements per thread along dim1,
    // 4x8 lanes (dim1 fastest), 2 warps along dim0.
    let blocked = LinearLayout::identity_1d(4, "register", "dim1")?
        .product(&LinearLayout::identity_1d(4, "lane", "dim1")?)?
        .product(&LinearLayout::identity_1d(8, "lane", "dim0")?)?
        .product(&LinearLayout::identity_1d(2, "warp", "dim0")?)?
        .transpose_outs(&["dim0", "dim1"])?;
    println!("A blocked layout (4 elements per thread, 4x8 lanes, 2 warps) of a 16x16 tensor:{blocked}\n");

    // The same tensor, column-major per thread: 4 rows per thread, lanes along dim1.
    let columns = LinearLayout::identity_1d(4, "register", "dim0")?
        .product(&LinearLayout::identity_1d(16, "lane", "dim1")?)?
        .product(&LinearLayout::identity_1d(2, "lane", "dim0")?)?
        .product(&LinearLayout::identity_1d(2, "warp", "dim0")?)?
        .transpose_outs(&["dim0", "dim1"])?;
    println!("A column-wise layout of the same tensor:{columns}\n");

    let owner = blocked.apply(&[("register", 3), ("lane", 9), ("warp", 1)])?;
    println!(
        "register 3 of lane 9 of warp 1 holds element {:?}\n",
        blocked
            .out_dim_names()
            .zip(&owner)
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
    );

    let inverse = blocked.invert()?;
    let who = inverse.apply(&[("dim0", 5), ("dim1", 13)])?;
    println!(
        "its inverse says element (5, 13) lives at {:?}\n",
        inverse
            .out_dim_names()
            .zip(&who)
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
    );

    let conversion = blocked.invert_and_compose(&columns)?;
    println!(
        "converting blocked -> column-wise (columns^-1 . blocked): for each source register/lane/warp, the destination that holds the same element:{conversion}\n"
    );
    // The vector width along the fastest tensor dim: list dim1 first.
    let row_major = blocked.transpose_outs(&["dim1", "dim0"])?;
    println!(
        "consecutive elements per thread along dim1 (the vector width): {}",
        row_major.num_consecutive_in_out()
    );
    println!("\nRun `linear-layout batch` to answer JSON-lines requests; see the README.");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => match tour() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("linear-layout: {e}");
                ExitCode::FAILURE
            }
        },
        Some("batch") => {
            let stdin = io::stdin();
            let stdout = io::stdout();
            match linear_layout::batch::run(stdin.lock(), BufWriter::new(stdout.lock())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("linear-layout batch: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("-h") | Some("--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("linear-layout: unknown command '{other}'\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
