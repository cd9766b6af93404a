//! [`ColumnAction`]: a re-indexing of the bases of one in-dim.

use std::fmt;

use super::layout::{Columns, Result};
use super::{DimName, LayoutError, LinearLayout};

/// A permutation (or selection) of the bases of one input dimension — typically `register`.
///
/// Reordering a layout's register bases reorders the registers themselves: if bit `k` of the
/// new register index is bit `action[k]` of the old one, the same data sits in a different
/// register order. Compilers use this to make a layout divisible by a vector tile (see
/// [`largest_vectorisation`](crate::linear::largest_vectorisation)) and then move values to
/// match.
///
/// ```
/// use linear_layout::linear::{ColumnAction, LinearLayout};
/// let a = ColumnAction::new(vec![2, 0, 1], "register", 3)?;
/// let l = LinearLayout::identity_1d(8, "register", "dim0")?;
/// assert_eq!(a.apply(&l)?.bases("register")?, vec![vec![4], vec![1], vec![2]]);
/// assert_eq!(a.apply_values(&[0, 1, 2, 3, 4, 5, 6, 7])?, vec![0, 4, 1, 5, 2, 6, 3, 7]);
/// assert_eq!(a.to_string(), "ColumnAction([2, 0, 1], register, 3)");
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ColumnAction {
    action: Vec<usize>,
    in_dim: DimName,
    in_size_log2: u32,
}

impl ColumnAction {
    /// An action on `in_dim` (of `2^in_size_log2` values): new basis `i` is old basis
    /// `action[i]`. Every index must be below `in_size_log2`; a shorter action drops bases.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert!(ColumnAction::new(vec![1, 0], "register", 2).is_ok());
    /// assert!(ColumnAction::new(vec![2, 0], "register", 2).is_err());
    /// ```
    pub fn new(action: Vec<usize>, in_dim: impl Into<DimName>, in_size_log2: u32) -> Result<Self> {
        let in_dim = in_dim.into();
        if let Some(&bad) = action.iter().find(|&&a| a >= in_size_log2 as usize) {
            return Err(LayoutError::Precondition {
                op: "ColumnAction",
                detail: format!("index {bad} is out of range for '{in_dim}' with {in_size_log2} bases"),
            });
        }
        Ok(ColumnAction {
            action,
            in_dim,
            in_size_log2,
        })
    }

    /// The identity action on `in_dim` with `in_size_log2` bases.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert!(ColumnAction::identity("register", 3).is_identity());
    /// ```
    pub fn identity(in_dim: impl Into<DimName>, in_size_log2: u32) -> Self {
        ColumnAction {
            action: (0..in_size_log2 as usize).collect(),
            in_dim: in_dim.into(),
            in_size_log2,
        }
    }

    /// The indices: new basis `i` is old basis `action()[i]`.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert_eq!(ColumnAction::new(vec![1, 0], "r", 2)?.action(), &[1, 0]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn action(&self) -> &[usize] {
        &self.action
    }

    /// The in-dim acted on.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert_eq!(ColumnAction::identity("register", 2).in_dim(), "register");
    /// ```
    pub fn in_dim(&self) -> &DimName {
        &self.in_dim
    }

    /// Whether the action is `[0, 1, …, in_size_log2 - 1]`.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert!(!ColumnAction::new(vec![1, 0], "r", 2)?.is_identity());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn is_identity(&self) -> bool {
        self.action.len() == self.in_size_log2 as usize
            && self.action.iter().enumerate().all(|(i, &a)| i == a)
    }

    /// Re-indexes the bases of the layout's in-dim, which must have exactly `in_size_log2`
    /// bases. Out-dim sizes are kept.
    ///
    /// ```
    /// # use linear_layout::linear::{ColumnAction, LinearLayout};
    /// let l = LinearLayout::identity_1d(8, "in", "out")?;
    /// let dropped = ColumnAction::new(vec![1, 0], "in", 3)?.apply(&l)?;
    /// assert_eq!(dropped.bases("in")?, vec![vec![2], vec![1]]);
    /// assert_eq!(dropped.out_dim_size("out")?, 8);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn apply(&self, layout: &LinearLayout) -> Result<LinearLayout> {
        let i = layout.in_pos(&self.in_dim)?;
        if layout.ins[i].bits != self.in_size_log2 {
            return Err(LayoutError::SizeMismatch {
                op: "ColumnAction::apply",
                dim: self.in_dim,
                size: 1 << layout.ins[i].bits.min(63),
                required: format!("the action is for size 2^{}", self.in_size_log2),
            });
        }
        if self.is_identity() {
            return Ok(layout.clone());
        }
        let mut ins = layout.ins.edit();
        ins[i].bits = self.action.len() as u32;
        let mut cols = Columns::new();
        for k in 0..layout.ins.len() {
            let old = layout.dim_cols(k);
            if k == i {
                self.action.iter().for_each(|&a| cols.push(old[a]));
            } else {
                old.iter().for_each(|&c| cols.push(c));
            }
        }
        LinearLayout::from_parts(ins, layout.outs, cols)
    }

    /// Reorders one value per input (`2^in_size_log2` of them): bit `k` of the new index is
    /// bit `action[k]` of the old one. A shorter action keeps `2^len` values.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// let a = ColumnAction::new(vec![2, 1], "register", 3)?;
    /// assert_eq!(a.apply_values(&["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"])?, ["x0", "x4", "x2", "x6"]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn apply_values<T: Clone>(&self, values: &[T]) -> Result<Vec<T>> {
        if self.in_size_log2 >= 63 || values.len() as u64 != 1u64 << self.in_size_log2 {
            return Err(LayoutError::SizeMismatch {
                op: "ColumnAction::apply_values",
                dim: self.in_dim,
                size: values.len() as u64,
                required: format!("the action is for 2^{} values", self.in_size_log2),
            });
        }
        Ok((0..1usize << self.action.len())
            .map(|i| {
                let src = self
                    .action
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| i >> k & 1 == 1)
                    .fold(0usize, |acc, (_, &a)| acc | 1 << a);
                values[src].clone()
            })
            .collect())
    }

    /// The inverse permutation: `inverse[action[i]] = i`. Only a full permutation has one.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// assert_eq!(ColumnAction::new(vec![2, 0, 1], "r", 3)?.inverse()?.action(), &[1, 2, 0]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn inverse(&self) -> Result<ColumnAction> {
        let n = self.in_size_log2 as usize;
        let mut inv = vec![usize::MAX; n];
        for (i, &a) in self.action.iter().enumerate() {
            if inv[a] != usize::MAX {
                break;
            }
            inv[a] = i;
        }
        if self.action.len() != n || inv.contains(&usize::MAX) {
            return Err(LayoutError::Precondition {
                op: "ColumnAction::inverse",
                detail: format!("{self} is not a permutation"),
            });
        }
        Ok(ColumnAction {
            action: inv,
            in_dim: self.in_dim,
            in_size_log2: self.in_size_log2,
        })
    }

    /// `self` after `other`: `result[i] = self[other[i]]`. Both act on the same dim and size
    /// with equally long actions.
    ///
    /// ```
    /// # use linear_layout::linear::ColumnAction;
    /// let a = ColumnAction::new(vec![2, 0, 1], "r", 3)?;
    /// assert!(a.left_compose(&a.inverse()?)?.is_identity());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn left_compose(&self, other: &ColumnAction) -> Result<ColumnAction> {
        if self.in_dim != other.in_dim
            || self.in_size_log2 != other.in_size_log2
            || self.action.len() != other.action.len()
        {
            return Err(LayoutError::Precondition {
                op: "ColumnAction::left_compose",
                detail: format!("{self} and {other} act on different dims or sizes"),
            });
        }
        let action = other
            .action
            .iter()
            .map(|&o| self.action.get(o).copied())
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| LayoutError::Precondition {
                op: "ColumnAction::left_compose",
                detail: format!("{other} selects a basis that {self} does not have"),
            })?;
        Ok(ColumnAction {
            action,
            in_dim: self.in_dim,
            in_size_log2: self.in_size_log2,
        })
    }
}

/// Triton's `ColumnAction::toString`: `ColumnAction([2, 0, 1], register, 3)`.
impl fmt::Display for ColumnAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.action.iter().map(|a| a.to_string()).collect();
        write!(
            f,
            "ColumnAction([{}], {}, {})",
            list.join(", "),
            self.in_dim,
            self.in_size_log2
        )
    }
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;

    /// Applying an action and then its inverse restores the layout, and apply_values moves
    /// values the way apply moves bases.
    #[test]
    fn inverse_undoes_the_action() {
        fn law(l: LinearLayout, seed: Vec<u8>) -> bool {
            let Some(first) = l.ins.first() else { return true };
            let n = first.bits as usize;
            let mut perm: Vec<usize> = (0..n).collect();
            for (i, s) in seed.iter().enumerate().take(n) {
                perm.swap(i, *s as usize % n);
            }
            let a = ColumnAction::new(perm, first.name, n as u32).unwrap();
            let back = a.apply(&l).and_then(|p| a.inverse()?.apply(&p));
            let values: Vec<u64> = (0..1u64 << n).collect();
            let moved = a.apply_values(&values).unwrap();
            let perm_layout = a
                .apply(&LinearLayout::identity_1d(1 << n, first.name, "v").unwrap())
                .unwrap();
            back.ok() == Some(l.clone())
                && moved
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| perm_layout.apply_flat(i as u64) == v)
        }
        check_law(law as fn(LinearLayout, Vec<u8>) -> bool);
    }
}
