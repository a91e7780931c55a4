//! Sampler state: how a texture is filtered and addressed.
//!
//! In: the caller's [`SamplerDesc`] bound by slot
//! ([`crate::runtime::Bindings::sampler`], which re-exports these types).
//! Out: the description the sampling rules of [`super::sample`] read.
//! It lives in `sem` because those rules (and [`ComparisonFunc::test`])
//! are defined on it and `sem` imports nothing above it.
//! Invariant: a description is plain data; every field has a defined
//! meaning for every value (NaN LOD limits are treated by the LOD rules),
//! and an unbound slot reads as [`SamplerDesc::default`], which is the
//! D3D11 default sampler state (trilinear, clamp, LOD range unlimited).

/// Point or linear filtering along one axis (minification, magnification or mip).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterMode {
    Point,
    Linear,
}

/// The filter of a sampler. `anisotropic` is accepted and filtered as
/// linear in min, mag and mip with the isotropic LOD (documented in
/// `docs/semantics.md`, "Sampling").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    pub min: FilterMode,
    pub mag: FilterMode,
    pub mip: FilterMode,
    pub anisotropic: bool,
}

impl Filter {
    /// Point filtering everywhere (`MIN_MAG_MIP_POINT`).
    pub const POINT: Filter = Filter {
        min: FilterMode::Point,
        mag: FilterMode::Point,
        mip: FilterMode::Point,
        anisotropic: false,
    };
    /// Linear filtering everywhere (`MIN_MAG_MIP_LINEAR`).
    pub const LINEAR: Filter = Filter {
        min: FilterMode::Linear,
        mag: FilterMode::Linear,
        mip: FilterMode::Linear,
        anisotropic: false,
    };

    /// The effective (min, mag, mip) modes: anisotropic counts as linear.
    pub fn modes(self) -> (FilterMode, FilterMode, FilterMode) {
        if self.anisotropic {
            (FilterMode::Linear, FilterMode::Linear, FilterMode::Linear)
        } else {
            (self.min, self.mag, self.mip)
        }
    }
}

/// How a texel coordinate outside `[0, size)` is brought back (FS §7.18.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Mirror,
    Clamp,
    Border,
    MirrorOnce,
}

/// The comparison of `_c` sampling and gather ops: `reference OP texel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComparisonFunc {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

impl ComparisonFunc {
    /// Every function, in D3D11_COMPARISON_FUNC order.
    pub const ALL: [ComparisonFunc; 8] = [
        ComparisonFunc::Never,
        ComparisonFunc::Less,
        ComparisonFunc::Equal,
        ComparisonFunc::LessEqual,
        ComparisonFunc::Greater,
        ComparisonFunc::NotEqual,
        ComparisonFunc::GreaterEqual,
        ComparisonFunc::Always,
    ];

    /// `reference OP texel` with IEEE semantics (any NaN: only
    /// `NotEqual` and `Always` pass).
    pub fn test(self, reference: f32, texel: f32) -> bool {
        match self {
            ComparisonFunc::Never => false,
            ComparisonFunc::Less => reference < texel,
            ComparisonFunc::Equal => reference == texel,
            ComparisonFunc::LessEqual => reference <= texel,
            ComparisonFunc::Greater => reference > texel,
            ComparisonFunc::NotEqual => reference != texel,
            ComparisonFunc::GreaterEqual => reference >= texel,
            ComparisonFunc::Always => true,
        }
    }
}

/// A sampler state object (D3D11_SAMPLER_DESC).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    pub filter: Filter,
    pub address_u: AddressMode,
    pub address_v: AddressMode,
    pub address_w: AddressMode,
    pub border_color: [f32; 4],
    /// Used by `sample_c*` and `gather4_c*` only.
    pub comparison: ComparisonFunc,
    pub mip_lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    /// Accepted for completeness; filtering is isotropic.
    pub max_anisotropy: u32,
}

impl Default for SamplerDesc {
    /// The D3D11 default sampler state.
    fn default() -> Self {
        SamplerDesc {
            filter: Filter::LINEAR,
            address_u: AddressMode::Clamp,
            address_v: AddressMode::Clamp,
            address_w: AddressMode::Clamp,
            border_color: [1.0; 4],
            comparison: ComparisonFunc::Never,
            mip_lod_bias: 0.0,
            min_lod: f32::MIN,
            max_lod: f32::MAX,
            max_anisotropy: 1,
        }
    }
}

impl SamplerDesc {
    /// A sampler with `filter` and one address mode on all axes.
    pub fn new(filter: Filter, address: AddressMode) -> SamplerDesc {
        SamplerDesc {
            filter,
            address_u: address,
            address_v: address,
            address_w: address,
            ..SamplerDesc::default()
        }
    }

    /// The address modes as an array (u, v, w).
    pub fn address(&self) -> [AddressMode; 3] {
        [self.address_u, self.address_v, self.address_w]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_put_the_reference_first() {
        assert!(ComparisonFunc::Less.test(0.25, 0.5));
        assert!(!ComparisonFunc::Less.test(0.5, 0.5));
        assert!(ComparisonFunc::GreaterEqual.test(0.5, 0.5));
        assert!(ComparisonFunc::NotEqual.test(f32::NAN, 0.5));
        assert!(!ComparisonFunc::Equal.test(f32::NAN, f32::NAN));
        assert!(!ComparisonFunc::Never.test(0.0, 0.0));
    }

    #[test]
    fn anisotropic_filters_as_linear() {
        let f = Filter {
            anisotropic: true,
            ..Filter::POINT
        };
        assert_eq!(
            f.modes(),
            (FilterMode::Linear, FilterMode::Linear, FilterMode::Linear)
        );
        assert_eq!(SamplerDesc::default().address_w, AddressMode::Clamp);
    }
}
