//! Word lists of general Chinese and English that the engine reads: each module one kind of word, each list
//! named for what its words do in a question.

pub mod bands;
pub mod cues;
pub mod days;
pub mod direction;
pub mod inclusion;
pub mod modes;
pub mod money;
pub mod people;
pub mod quantity;
pub mod references;
