//! The facts code generation needs about a target: buffer-descriptor words, intrinsic
//! spellings, kernel ABI attributes. One constant per hardware family, referenced by the rows of
//! [`TARGETS`](super::TARGETS) through [`Target::lowering`](super::Target::lowering).

/// What the lowering needs to know about one hardware family.
///
/// ```
/// use linear_layout::target::Target;
/// let gfx942 = Target::by_name("gfx942")?;
/// let _facts = gfx942.lowering;
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LoweringFacts {}

/// CDNA2 (gfx90a).
pub const CDNA2: LoweringFacts = LoweringFacts {};
/// CDNA3 (gfx942).
pub const CDNA3: LoweringFacts = LoweringFacts {};
/// CDNA4 (gfx950).
pub const CDNA4: LoweringFacts = LoweringFacts {};
/// RDNA3 (gfx1100).
pub const RDNA3: LoweringFacts = LoweringFacts {};
/// RDNA4 (gfx1201).
pub const RDNA4: LoweringFacts = LoweringFacts {};
/// GFX12.5 (gfx1250).
pub const GFX1250: LoweringFacts = LoweringFacts {};
