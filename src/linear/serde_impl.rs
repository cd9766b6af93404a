//! JSON interchange in the layout format of the batch protocol:
//! `{"in_dims": {name: [basis, …]}, "out_dims": {name: size}}`, where member order is the
//! dimension order.
//!
//! Deserialising preserves that order without any ordered-map feature of the JSON reader,
//! and reads a repeated member as JSON readers that keep insertion order do (the last value,
//! at the first position). Components and sizes are 32-bit signed integers, as in Triton; a
//! deserialised layout is validated like [`LinearLayout::from_bases`] without requiring
//! surjectivity.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{LinearLayout, MAX_DIMS};
use crate::limits::LimitExceeded;

struct Bases<'a>(&'a LinearLayout);
struct Sizes<'a>(&'a LinearLayout);

impl Serialize for Bases<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.0;
        let mut m = s.serialize_map(Some(l.num_in_dims()))?;
        for (i, d) in l.ins.iter().enumerate() {
            let bases: Vec<_> = l.dim_cols(i).iter().map(|&c| l.unflatten(c)).collect();
            m.serialize_entry(d.name.as_str(), &bases)?;
        }
        m.end()
    }
}

impl Serialize for Sizes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.num_out_dims()))?;
        for (name, size) in self.0.out_dims() {
            m.serialize_entry(name.as_str(), &size)?;
        }
        m.end()
    }
}

/// ```
/// # use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::strided_1d(2, 2, "lane", "dim0")?;
/// assert_eq!(serde_json::to_string(&l).unwrap(), r#"{"in_dims":{"lane":[[2]]},"out_dims":{"dim0":4}}"#);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
impl Serialize for LinearLayout {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("in_dims", &Bases(self))?;
        m.serialize_entry("out_dims", &Sizes(self))?;
        m.end()
    }
}

/// An ordered JSON object read as a list of entries, a repeated key replacing the value in
/// place.
struct Ordered<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, T)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    match entries.iter().position(|(n, _)| *n == k) {
                        Some(i) => entries[i].1 = v,
                        // Stop at the limit rather than compare every further name with all.
                        None if entries.len() == MAX_DIMS => {
                            return Err(de::Error::custom(LimitExceeded::new(
                                "linear::MAX_DIMS",
                                "dims of a layout (in_dims or out_dims)",
                                MAX_DIMS as u64,
                                MAX_DIMS as u64 + 1,
                            )));
                        }
                        None => entries.push((k, v)),
                    }
                }
                Ok(Ordered(entries))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// ```
/// # use linear_layout::linear::LinearLayout;
/// let l: LinearLayout = serde_json::from_str(r#"{"in_dims": {"lane": [[2]], "warp": []}, "out_dims": {"dim0": 4}}"#).unwrap();
/// assert_eq!(l.in_dim_names().collect::<Vec<_>>(), ["lane", "warp"]);
/// assert!(serde_json::from_str::<LinearLayout>(r#"{"in_dims": {"lane": [[4]]}, "out_dims": {"dim0": 4}}"#).is_err());
/// ```
impl<'de> Deserialize<'de> for LinearLayout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LinearLayout;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a layout object with 'in_dims' and 'out_dims'")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LinearLayout, A::Error> {
                let mut ins: Option<Ordered<Vec<Vec<i32>>>> = None;
                let mut outs: Option<Ordered<i32>> = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "in_dims" => ins = Some(map.next_value()?),
                        "out_dims" => outs = Some(map.next_value()?),
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                let ins = ins.ok_or_else(|| de::Error::missing_field("in_dims"))?;
                let outs = outs.ok_or_else(|| de::Error::missing_field("out_dims"))?;
                LinearLayout::from_bases(
                    ins.0.into_iter().map(|(n, bs)| {
                        (
                            n,
                            bs.into_iter()
                                .map(|b| b.into_iter().map(i64::from).collect())
                                .collect(),
                        )
                    }),
                    outs.0.into_iter().map(|(n, s)| (n, i64::from(s))),
                    false,
                )
                .map_err(de::Error::custom)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;

    /// serde round-trips, keeping dimension order.
    #[test]
    fn json_round_trips() {
        fn law(l: LinearLayout) -> bool {
            let text = serde_json::to_string(&l).unwrap();
            serde_json::from_str::<LinearLayout>(&text).ok() == Some(l)
        }
        check_law(law as fn(LinearLayout) -> bool);
    }
}
