//! Counting the instructions of generated code with LLVM's `llc-22`, where it is installed:
//! what the tour and the page show beside Triton's counts.

/// The instructions of a kernel's body in `llc`'s assembly: the lines between its label and
/// `s_endpgm` (that included) that are neither labels, directives nor comments — as the
/// oracle counts Triton's.
pub fn machine_instructions(asm: &str) -> usize {
    // Each line without its comment.
    let mut lines = asm.lines().map(|l| l.split(';').next().unwrap_or("").trim());
    let is_kernel_label = |l: &str| l.ends_with(':') && !l.starts_with(['.', '$']);
    if lines.by_ref().find(|l| is_kernel_label(l)).is_none() {
        return 0;
    }
    let mut count = 0;
    for line in lines {
        if line.is_empty() || line.starts_with('.') || line.ends_with(':') {
            continue;
        }
        count += 1;
        if line.starts_with("s_endpgm") {
            break;
        }
    }
    count
}

/// `llc-22`'s assembly of the LLVM IR `ir` for `arch`, where `llc-22` is installed.
pub fn assemble(ir: &str, arch: &str) -> Option<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut llc = Command::new("llc-22")
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={arch}"),
            "-O3",
            "-o",
            "-",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // The IR is written whole before the assembly is read: llc reads all of its input first.
    llc.stdin.take()?.write_all(ir.as_bytes()).ok()?;
    let out = llc.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::machine_instructions;

    /// A kernel's instructions are the lines from its label to `s_endpgm`, without labels,
    /// directives and comments.
    #[test]
    fn machine_instructions_count_the_kernel_body() {
        let asm = "\t.text\n\t.globl\tk ; -- Begin\nk:                ; @k\n; %bb.0:\n\ts_load_dword s2, s[0:1], 0x0\n\
                   \t; a comment\n\tv_mov_b32 v1, 0 ; why\n.LBB0_1:\n\ts_endpgm\n.Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n\
                   amdhsa.kernels:\n  - .name: k\n";
        assert_eq!(machine_instructions(asm), 3);
        assert_eq!(machine_instructions("no kernel here"), 0);
    }
}
