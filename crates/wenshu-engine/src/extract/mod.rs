pub mod grounding;
