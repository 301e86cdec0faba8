//! The demo: data the binary makes itself (movies, box office, ratings, sales) and the demo catalog with its SQL templates.
