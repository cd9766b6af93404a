//! The JSON form of encodings (the schema of the oracle `ll_oracle.py`), both directions.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::error::EncodingError;
use super::types::*;
use crate::limits::LimitExceeded;

type R<T> = Result<T, EncodingError>;

fn jerr(kind: &str, msg: impl std::fmt::Display) -> EncodingError {
    EncodingError::Json(format!("{kind}: {msg}"))
}

struct Obj<'a> {
    kind: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    fn req(&self, key: &str) -> R<&'a Value> {
        self.get(key)
            .ok_or_else(|| jerr(self.kind, format!("missing required parameter '{key}'")))
    }

    fn uint(&self, key: &str, v: &Value) -> R<u32> {
        v.as_u64()
            .filter(|_| !v.is_boolean())
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(|| {
                jerr(
                    self.kind,
                    format!("'{key}' must be a non-negative 32-bit int, got {v}"),
                )
            })
    }

    fn req_uint(&self, key: &str) -> R<u32> {
        self.uint(key, self.req(key)?)
    }

    fn opt_uint(&self, key: &str, default: u32) -> R<u32> {
        self.get(key).map_or(Ok(default), |v| self.uint(key, v))
    }

    fn bool(&self, key: &str, default: bool) -> R<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(jerr(self.kind, format!("'{key}' must be a bool, got {v}"))),
        }
    }

    fn ints(&self, key: &str, v: &Value) -> R<Vec<u32>> {
        let arr = v
            .as_array()
            .ok_or_else(|| jerr(self.kind, format!("'{key}' must be a list of ints, got {v}")))?;
        if arr.len() > 64 {
            return Err(jerr(
                self.kind,
                format!("'{key}' has {} entries (at most 64)", arr.len()),
            ));
        }
        arr.iter().map(|x| self.uint(key, x)).collect()
    }

    fn req_ints(&self, key: &str) -> R<Vec<u32>> {
        self.ints(key, self.req(key)?)
    }

    fn opt_ints(&self, key: &str) -> R<Option<Vec<u32>>> {
        self.get(key).map(|v| self.ints(key, v)).transpose()
    }

    fn bases(&self, key: &str, v: &Value) -> R<Vec<Vec<u32>>> {
        let arr = v.as_array().ok_or_else(|| {
            jerr(
                self.kind,
                format!("'{key}' must be a list of lists of ints, got {v}"),
            )
        })?;
        if arr.len() > 64 {
            return Err(jerr(
                self.kind,
                format!("'{key}' has {} bases (at most 64)", arr.len()),
            ));
        }
        arr.iter().map(|b| self.ints(key, b)).collect()
    }

    fn opt_bases(&self, key: &str) -> R<Vec<Vec<u32>>> {
        self.get(key).map_or(Ok(Vec::new()), |v| self.bases(key, v))
    }

    fn req_bases(&self, key: &str) -> R<Vec<Vec<u32>>> {
        self.bases(key, self.req(key)?)
    }
}

fn shape_list(kind: &str, v: &Value) -> R<Vec<u64>> {
    let arr = v
        .as_array()
        .ok_or_else(|| jerr(kind, format!("'shape' must be a list of ints, got {v}")))?;
    LimitExceeded::check(
        "encodings::MAX_RANK",
        "dims of a tensor shape",
        MAX_RANK as u64,
        arr.len() as u64,
    )?;
    arr.iter()
        .map(|x| {
            x.as_u64().ok_or_else(|| {
                jerr(
                    kind,
                    format!("'shape' entries must be non-negative ints, got {x}"),
                )
            })
        })
        .collect()
}

impl Encoding {
    /// Reads an encoding from the JSON schema of the oracle (`{"kind": "blocked", …}`,
    /// parameters named as in the MLIR text; `{"kind": "mlir", "text": "#ttg…"}` parses text).
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let v = serde_json::json!({"kind": "amd_mfma", "version": 3, "warpsPerCTA": [2, 2],
    ///                            "instrShape": [32, 32, 8], "isTransposed": true});
    /// let e = Encoding::from_json(&v)?;
    /// assert_eq!(e.to_string(), "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>");
    /// assert!(Encoding::from_json(&serde_json::json!({"kind": "blocked"})).is_err());
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn from_json(v: &Value) -> Result<Encoding, EncodingError> {
        from_json_depth(v, 0)
    }

    /// Reads an encoding from JSON text (see [`from_json`](Self::from_json)).
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e = Encoding::from_json_str(r#"{"kind": "swizzled_shared", "vec": 8, "perPhase": 1, "maxPhase": 8, "order": [1, 0]}"#)?;
    /// assert_eq!(e.kind(), "swizzled_shared");
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn from_json_str(s: &str) -> Result<Encoding, EncodingError> {
        let v: Value = serde_json::from_str(s).map_err(|e| EncodingError::Json(e.to_string()))?;
        Self::from_json(&v)
    }

    /// The JSON form (the oracle's schema); defaults are written out, so
    /// `from_json(to_json(e)) == e`.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 1]}>".parse()?;
    /// let v = e.to_json();
    /// assert_eq!(v["isTransposed"], true);
    /// assert_eq!(Encoding::from_json(&v)?, e);
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("kind".into(), json!(self.kind()));
        let mut put = |k: &str, v: Value| {
            m.insert(k.into(), v);
        };
        match self {
            Encoding::Blocked(b) => {
                put("sizePerThread", json!(b.size_per_thread));
                put("threadsPerWarp", json!(b.threads_per_warp));
                put("warpsPerCTA", json!(b.warps_per_cta));
                put("order", json!(b.order));
                put("cgaLayout", json!(b.cga_layout));
            }
            Encoding::Slice(s) => {
                put("dim", json!(s.dim));
                put("parent", s.parent.to_json());
            }
            Encoding::AmdMfma(x) => {
                put("version", json!(x.version));
                put("warpsPerCTA", json!(x.warps_per_cta));
                put("instrShape", json!(x.instr_shape));
                put("isTransposed", json!(x.is_transposed));
                put("tilesPerWarp", json!(x.tiles_per_warp));
                put("elementBitWidth", json!(x.element_bit_width));
                put("cgaLayout", json!(x.cga_layout));
            }
            Encoding::AmdWmma(x) => {
                put("version", json!(x.version));
                put("warpsPerCTA", json!(x.warps_per_cta));
                put("isTransposed", json!(x.is_transposed));
                put("tilesPerWarp", json!(x.tiles_per_warp));
                put("instrShape", json!(x.instr_shape));
                put("cgaLayout", json!(x.cga_layout));
            }
            Encoding::NvidiaMma(x) => {
                put("versionMajor", json!(x.version_major));
                put("versionMinor", json!(x.version_minor));
                put("warpsPerCTA", json!(x.warps_per_cta));
                put("instrShape", json!(x.instr_shape));
                put("cgaLayout", json!(x.cga_layout));
            }
            Encoding::DotOperand(d) => {
                put("opIdx", json!(d.op_idx));
                put("parent", d.parent.to_json());
                put("kWidth", json!(d.k_width));
            }
            Encoding::Linear(l) => {
                put("registerBases", json!(l.register));
                put("laneBases", json!(l.lane));
                put("warpBases", json!(l.warp));
                put("blockBases", json!(l.block));
                if let Some(s) = &l.shape {
                    put("shape", json!(s));
                }
            }
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => {
                put("vec", json!(s.vec));
                put("perPhase", json!(s.per_phase));
                put("maxPhase", json!(s.max_phase));
                put("order", json!(s.order));
                put("cgaLayout", json!(s.cga_layout));
            }
            Encoding::NvmmaShared(n) => {
                put("swizzlingByteWidth", json!(n.swizzling_byte_width));
                put("elementBitWidth", json!(n.element_bit_width));
                put("transposed", json!(n.transposed));
                put("fp4Padded", json!(n.fp4_padded));
                put("cgaLayout", json!(n.cga_layout));
                if let Some(r) = n.rank {
                    put("rank", json!(r));
                }
            }
            Encoding::PaddedShared(p) => {
                put("intervals", json!(p.intervals));
                put("paddings", json!(p.paddings));
                match &p.linear {
                    PaddedLinear::Bases { offset, block } => {
                        put("offsetBases", json!(offset));
                        put("blockBases", json!(block));
                    }
                    PaddedLinear::Identity { order, shape } => {
                        put("order", json!(order));
                        if let Some(s) = shape {
                            put("shape", json!(s));
                        }
                    }
                }
            }
            Encoding::SharedLinear(s) => {
                put("offsetBases", json!(s.offset));
                put("blockBases", json!(s.block));
                put("alignment", json!(s.alignment));
            }
        }
        Value::Object(m)
    }
}

fn from_json_depth(v: &Value, depth: usize) -> R<Encoding> {
    LimitExceeded::check(
        "encodings::MAX_NESTING",
        "slice/dot_op parents nested in an encoding",
        MAX_NESTING as u64,
        depth as u64,
    )?;
    let map = v
        .as_object()
        .ok_or_else(|| EncodingError::Json(format!("an encoding must be a JSON object, got {v}")))?;
    let kind = map
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| EncodingError::Json("missing string member 'kind'".into()))?;
    let o = Obj { kind, map };
    let tpw_default = |w: &Vec<u32>| vec![1; w.len()];
    Ok(match kind {
        "blocked" => Encoding::Blocked(Blocked {
            size_per_thread: o.req_ints("sizePerThread")?,
            threads_per_warp: o.req_ints("threadsPerWarp")?,
            warps_per_cta: o.req_ints("warpsPerCTA")?,
            order: o.req_ints("order")?,
            cga_layout: o.opt_bases("cgaLayout")?,
        }),
        "slice" => Encoding::Slice(Slice {
            dim: o.req_uint("dim")?,
            parent: Arc::new(from_json_depth(o.req("parent")?, depth + 1)?),
        }),
        "amd_mfma" => {
            let w = o.req_ints("warpsPerCTA")?;
            Encoding::AmdMfma(AmdMfma {
                version: o.req_uint("version")?,
                instr_shape: o.req_ints("instrShape")?,
                is_transposed: o.bool("isTransposed", false)?,
                tiles_per_warp: o
                    .opt_ints("tilesPerWarp")?
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| tpw_default(&w)),
                element_bit_width: o.opt_uint("elementBitWidth", 32)?,
                cga_layout: o.opt_bases("cgaLayout")?,
                warps_per_cta: w,
            })
        }
        "amd_wmma" => {
            let w = o.req_ints("warpsPerCTA")?;
            Encoding::AmdWmma(AmdWmma {
                version: o.req_uint("version")?,
                is_transposed: o.bool("isTransposed", false)?,
                tiles_per_warp: o
                    .opt_ints("tilesPerWarp")?
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| tpw_default(&w)),
                instr_shape: o.opt_ints("instrShape")?.unwrap_or_else(|| vec![16, 16, 16]),
                cga_layout: o.opt_bases("cgaLayout")?,
                warps_per_cta: w,
            })
        }
        "nvidia_mma" => Encoding::NvidiaMma(NvidiaMma {
            version_major: o.req_uint("versionMajor")?,
            version_minor: o.opt_uint("versionMinor", 0)?,
            warps_per_cta: o.req_ints("warpsPerCTA")?,
            cga_layout: o.opt_bases("cgaLayout")?,
            instr_shape: o.req_ints("instrShape")?,
        }),
        "dot_operand" | "dot_op" => Encoding::DotOperand(DotOperand {
            op_idx: o.req_uint("opIdx")?,
            parent: Arc::new(from_json_depth(o.req("parent")?, depth + 1)?),
            k_width: o.req_uint("kWidth")?,
        }),
        "linear" => Encoding::Linear(Linear {
            register: o.req_bases("registerBases")?,
            lane: o.req_bases("laneBases")?,
            warp: o.req_bases("warpBases")?,
            block: o.opt_bases("blockBases")?,
            shape: o.get("shape").map(|s| shape_list(kind, s)).transpose()?,
        }),
        "swizzled_shared" | "amd_rotating_shared" => {
            let s = Swizzled {
                vec: o.req_uint("vec")?,
                per_phase: o.req_uint("perPhase")?,
                max_phase: o.req_uint("maxPhase")?,
                order: o.req_ints("order")?,
                cga_layout: o.opt_bases("cgaLayout")?,
            };
            if kind == "swizzled_shared" {
                Encoding::SwizzledShared(s)
            } else {
                Encoding::AmdRotatingShared(s)
            }
        }
        "nvmma_shared" => Encoding::NvmmaShared(NvmmaShared {
            swizzling_byte_width: o.req_uint("swizzlingByteWidth")?,
            transposed: o.bool("transposed", false)?,
            element_bit_width: o.req_uint("elementBitWidth")?,
            fp4_padded: o.bool("fp4Padded", false)?,
            cga_layout: o.opt_bases("cgaLayout")?,
            rank: o.get("rank").map(|v| o.uint("rank", v)).transpose()?,
        }),
        "padded_shared" => {
            let linear = if o.get("offsetBases").is_some() {
                PaddedLinear::Bases {
                    offset: o.req_bases("offsetBases")?,
                    block: o.opt_bases("blockBases")?,
                }
            } else if let Some(order) = o.opt_ints("order")? {
                if !o.opt_bases("blockBases")?.is_empty() {
                    return Err(jerr(kind, "'blockBases' needs explicit 'offsetBases'"));
                }
                PaddedLinear::Identity {
                    order,
                    shape: o.get("shape").map(|s| shape_list(kind, s)).transpose()?,
                }
            } else {
                return Err(jerr(kind, "padded_shared needs offsetBases or order"));
            };
            Encoding::PaddedShared(PaddedShared {
                intervals: o.req_ints("intervals")?,
                paddings: o.req_ints("paddings")?,
                linear,
            })
        }
        "shared_linear" => Encoding::SharedLinear(SharedLinear {
            offset: o.req_bases("offsetBases")?,
            block: o.opt_bases("blockBases")?,
            alignment: o.opt_uint("alignment", 16)?,
        }),
        "mlir" => {
            let text = o
                .req("text")?
                .as_str()
                .ok_or_else(|| jerr(kind, "'text' must be a string"))?;
            text.parse()?
        }
        other => {
            return Err(EncodingError::Json(format!(
                "unknown encoding kind '{other}' (known: blocked, slice, amd_mfma, amd_wmma, nvidia_mma, dot_operand, linear, swizzled_shared, amd_rotating_shared, nvmma_shared, padded_shared, shared_linear, mlir)"
            )));
        }
    })
}

/// Deserialises from the JSON schema (see [`Encoding::from_json`]).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = serde_json::from_str(r##"{"kind": "mlir", "text": "#ttg.amd_rotating_shared<{vec = 2, perPhase = 2, maxPhase = 2, order = [1, 0]}>"}"##).unwrap();
/// assert_eq!(e.kind(), "amd_rotating_shared");
/// ```
impl<'de> Deserialize<'de> for Encoding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Encoding::from_json(&v).map_err(serde::de::Error::custom)
    }
}

/// Serialises to the JSON schema (see [`Encoding::to_json`]).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.slice<{dim = 0, parent = #ttg.linear<{register = [], lane = [[1, 0]], warp = [], block = []}>}>".parse().unwrap();
/// let s = serde_json::to_string(&e).unwrap();
/// assert!(s.starts_with(r#"{"kind":"slice","dim":0,"parent":{"kind":"linear""#));
/// ```
impl Serialize for Encoding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
