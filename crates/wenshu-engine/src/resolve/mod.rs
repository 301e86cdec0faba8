//! Subject resolution: entity name → ID over entity catalogs (exact, then fuzzy, with ranked candidates).
