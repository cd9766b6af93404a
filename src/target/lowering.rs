//! The facts code generation needs about a target: buffer-descriptor words, intrinsic
//! spellings, kernel ABI attributes. One constant per hardware family, referenced by the rows of
//! [`TARGETS`](super::TARGETS) through [`Target::lowering`](super::Target::lowering).
//!
//! Every field names its source; tags as in `amdgpu-lowering.md`: \[V\] compiled with LLVM 22,
//! \[T\] what Triton 3.6 emits, \[D\] third-party documentation.

/// What the lowering needs to know about one hardware family.
///
/// ```
/// use linear_layout::target::Target;
/// let gfx942 = Target::by_name("gfx942")?;
/// assert_eq!(gfx942.lowering.buffer_flags, 0x27000);
/// assert!(gfx942.lowering.kernel_attributes.contains(&"amdgpu-no-queue-ptr"));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LoweringFacts {
    /// Word-3 `flags` operand of `llvm.amdgcn.make.buffer.rsrc` (amdgpu-lowering.md §4.2, \[T\]):
    /// gfx9 `0x00027000` (NUM_FORMAT float, DATA_FORMAT 32: ignored by raw accesses, must be
    /// non-zero); gfx11/gfx12 `0x31027000` (adds RESOURCE_LEVEL and OOB_SELECT = 3, the raw
    /// offset check); gfx1250 `0x00027000` (only flags\[3:0\] survive in its 45-bit-num_records
    /// descriptor, which `make.buffer.rsrc` lays out itself).
    pub buffer_flags: u32,
    /// Largest `num_records` the descriptor holds (32 bits on gfx9–gfx12, 45 bits on gfx1250;
    /// §4.2 \[V\]). The lowering passes the buffer's exact byte size, so out-of-bounds offsets read
    /// 0 and drop stores (§4.3).
    pub buffer_max_records: u64,
    /// Largest constant added to a buffer access's `voffset` that LLVM folds into the
    /// instruction's immediate offset (§4.2 [V probes/buffer_imm_offset.ll]): 4095 on gfx9
    /// and gfx11, 8388607 on gfx1201; 0 on gfx1250, whose folding in LLVM 22 is irregular.
    pub buffer_immediate_offset: u64,
    /// Function attributes of every kernel: the `amdgpu-no-*` set that leaves the kernarg
    /// pointer the only user SGPR (§3 [V probes/plain_buffer_copy.ll]).
    pub kernel_attributes: &'static [&'static str],
    /// `ds_read_b64_tr_b16` / `_b8` as LLVM intrinsics (`<4 x i16>` / `<2 x i32>` results), if
    /// the family has the 64-bit transposing LDS read (§7 [V 05]).
    pub transpose_read_b64: Option<(&'static str, &'static str)>,
    /// `v_permlane16_swap_b32` / `v_permlane32_swap_b32` as LLVM intrinsics (`{i32, i32}`
    /// results), if the family has them (§8 [V 09]).
    pub permlane_swap: Option<(&'static str, &'static str)>,
    /// The loads that write global memory straight into LDS, if the family has them (§6).
    pub direct_to_lds: Option<DirectToLds>,
    /// Matrix instructions read and write their accumulator in VGPRs as well as AGPRs (CDNA2
    /// on): kernels ask LLVM for no AGPRs (`"amdgpu-agpr-alloc"="0"`), so an accumulator a loop
    /// carries is not copied between the two files every iteration.
    pub mfma_accumulates_in_vgprs: bool,
    /// Triton rounds `f32` to `bf16` itself, in integers — `(x + 0x7FFF + lsb) >> 16`, and
    /// `0x7FFF` for every NaN — rather than with LLVM's `fptrunc` (which quiets a NaN and keeps
    /// its sign and top payload bits): on CDNA2/3 and RDNA3, the families without
    /// `v_cvt_pk_bf16_f32` it targets that way \[T: its LLVM IR for gfx90a, gfx942 and
    /// gfx1100; `fptrunc` for gfx950, gfx1201 and gfx1250\].
    pub bf16_rounding_in_integers: bool,
    /// `v_pk_add_f32`, `v_pk_mul_f32` and `v_pk_fma_f32`: two `f32` operations in one
    /// instruction on a pair of registers (CDNA2 on \[V: `<2 x float>` arithmetic\]). Triton's
    /// elementwise `f32` code gets them from `opt`'s SLP vectorizer; the lowering pairs
    /// operations itself.
    pub packed_f32: bool,
    /// `v_cvt_pk_f16_f32`: two `f32` rounded to `f16` in one instruction (CDNA4 \[V\]). Without
    /// it (CDNA2/3) LLVM fuses a product with its rounding into `v_fma_mix`, which a packed
    /// product would lose.
    pub f16_rounding_pairs: bool,
}

/// Loads from global memory straight into LDS, without registers (amdgpu-lowering.md §6).
///
/// ```
/// use linear_layout::target::{DirectToLdsAddress, Target};
/// let d = Target::by_name("gfx950")?.lowering.direct_to_lds.unwrap();
/// assert_eq!(d.address, DirectToLdsAddress::WaveBlock);
/// assert!(d.bytes.contains(&16));
/// assert!(!Target::by_name("gfx942")?.lowering.direct_to_lds.unwrap().bytes.contains(&16));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DirectToLds {
    /// How each lane's LDS address is given.
    pub address: DirectToLdsAddress,
    /// The intrinsic: the full name for [`DirectToLdsAddress::WaveBlock`], the name before the
    /// width suffix (`b32`, `b128`, …) for [`DirectToLdsAddress::PerLane`].
    pub intrinsic: &'static str,
    /// Bytes one lane may load, each a power of two.
    pub bytes: &'static [u32],
    /// The intrinsic that waits for every such load of the wave, and its argument.
    pub wait: (&'static str, &'static str),
}

/// Where a direct-to-LDS load writes.
///
/// ```
/// use linear_layout::target::DirectToLdsAddress;
/// assert_ne!(DirectToLdsAddress::WaveBlock, DirectToLdsAddress::PerLane);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum DirectToLdsAddress {
    /// gfx9's `buffer_load … lds`: one wave-uniform base (in M0); lane `i` writes its `size`
    /// bytes at `base + i·size`, so a wave fills one contiguous block in lane order.
    WaveBlock,
    /// gfx1250's `global_load_async_to_lds`: every lane gives its own LDS address.
    PerLane,
}

/// gfx942 / gfx950 `raw.ptr.buffer.load.lds`, counted by `vmcnt` ([V 06, 07]; sizes 12 and 16
/// only on gfx950, gfx942 crashes llc on them).
const BUFFER_LOAD_LDS: DirectToLds = DirectToLds {
    address: DirectToLdsAddress::WaveBlock,
    intrinsic: "llvm.amdgcn.raw.ptr.buffer.load.lds",
    bytes: &[1, 2, 4],
    wait: ("llvm.amdgcn.s.waitcnt", "i32 0"),
};

/// The `amdgpu-no-*` attributes of amdgpu-lowering.md §3 (what `amdgpu-attributor` infers for a
/// kernel that uses only its kernarg pointer, the work-item id x and LDS).
const NO_IMPLICIT_INPUTS: &[&str] = &[
    "amdgpu-no-dispatch-ptr",
    "amdgpu-no-queue-ptr",
    "amdgpu-no-implicitarg-ptr",
    "amdgpu-no-dispatch-id",
    "amdgpu-no-workgroup-id-x",
    "amdgpu-no-workgroup-id-y",
    "amdgpu-no-workgroup-id-z",
    "amdgpu-no-workitem-id-y",
    "amdgpu-no-workitem-id-z",
    "amdgpu-no-lds-kernel-id",
    "amdgpu-no-flat-scratch-init",
    "amdgpu-no-hostcall-ptr",
    "amdgpu-no-heap-ptr",
    "amdgpu-no-multigrid-sync-arg",
    "amdgpu-no-default-queue",
    "amdgpu-no-completion-action",
];

const GFX9: LoweringFacts = LoweringFacts {
    buffer_flags: 0x0002_7000,
    buffer_max_records: u32::MAX as u64,
    buffer_immediate_offset: 4095,
    kernel_attributes: NO_IMPLICIT_INPUTS,
    transpose_read_b64: None,
    permlane_swap: None,
    direct_to_lds: None,
    mfma_accumulates_in_vgprs: false,
    bf16_rounding_in_integers: true,
    packed_f32: false,
    f16_rounding_pairs: false,
};

/// CDNA1 (gfx908): its matrix instructions keep their accumulators in AGPRs only, and it has
/// no packed `f32` arithmetic.
pub const CDNA1: LoweringFacts = GFX9;
/// CDNA2 (gfx90a): its direct-to-LDS loads are not verified with LLVM 22, so none are used.
pub const CDNA2: LoweringFacts = LoweringFacts {
    mfma_accumulates_in_vgprs: true,
    packed_f32: true,
    ..GFX9
};
/// CDNA3 (gfx942): 1-, 2- and 4-byte direct-to-LDS loads (§6 [V 06]).
pub const CDNA3: LoweringFacts = LoweringFacts {
    direct_to_lds: Some(BUFFER_LOAD_LDS),
    ..CDNA2
};
/// CDNA4 (gfx950): adds 16-byte direct-to-LDS loads, the transposing LDS reads and the permlane
/// swaps (§6, §7, §8 [V 05, 07, 09]).
pub const CDNA4: LoweringFacts = LoweringFacts {
    direct_to_lds: Some(DirectToLds {
        bytes: &[1, 2, 4, 16],
        ..BUFFER_LOAD_LDS
    }),
    transpose_read_b64: Some((
        "llvm.amdgcn.ds.read.tr16.b64.v4i16",
        "llvm.amdgcn.ds.read.tr8.b64.v2i32",
    )),
    permlane_swap: Some(("llvm.amdgcn.permlane16.swap", "llvm.amdgcn.permlane32.swap")),
    bf16_rounding_in_integers: false,
    f16_rounding_pairs: true,
    ..CDNA2
};
/// RDNA3 (gfx1100).
pub const RDNA3: LoweringFacts = LoweringFacts {
    buffer_flags: 0x3102_7000,
    ..GFX9
};
/// RDNA4 (gfx1201).
pub const RDNA4: LoweringFacts = LoweringFacts {
    buffer_immediate_offset: 8_388_607,
    bf16_rounding_in_integers: false,
    ..RDNA3
};
/// GFX12.5 (gfx1250): 45-bit `num_records`, Triton's flags (§4.2 [V probes/vsharp_words.ll]);
/// `global_load_async_to_lds_b{8,32,64,128}` with per-lane LDS addresses, counted by
/// `asynccnt` (§6 [V 03]).
pub const GFX1250: LoweringFacts = LoweringFacts {
    buffer_max_records: (1u64 << 45) - 1,
    buffer_immediate_offset: 0,
    direct_to_lds: Some(DirectToLds {
        address: DirectToLdsAddress::PerLane,
        intrinsic: "llvm.amdgcn.global.load.async.to.lds.b",
        bytes: &[1, 4, 8, 16],
        wait: ("llvm.amdgcn.s.wait.asynccnt", "i16 0"),
    }),
    bf16_rounding_in_integers: false,
    ..GFX9
};
