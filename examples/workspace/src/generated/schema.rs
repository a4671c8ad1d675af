// @generated
pub const SCHEMA: &str = "v1";
