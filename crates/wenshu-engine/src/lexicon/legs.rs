//! Where from and where to: a city parameter that is an origin or a destination (its name or description says
//! so) takes the city the question names in that role — 从A…, A发出, A到B, 发往B, 发B, from A, to B, A to B. No
//! role word, no value.

use wenshu_contract::ParamSpec;
use wenshu_lexicon::place::PlaceHit;
use wenshu_lexicon::words::direction::{
    ENGLISH_FROM_AFTER, ENGLISH_FROM_BEFORE, ENGLISH_TO_BEFORE, FROM_AFTER, FROM_BEFORE, TO_BEFORE,
};

/// The role of a place parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leg {
    /// Where something leaves from.
    Origin,
    /// Where it goes.
    Destination,
}

/// The leg a string parameter stands for, from its name or description.
pub fn leg_of(spec: &ParamSpec) -> Option<Leg> {
    if spec.format.is_some() {
        return None;
    }
    let name = spec.name.to_ascii_lowercase();
    let d = &spec.description;
    let origin = ["origin", "from", "source"].iter().any(|w| name.contains(w))
        || ["始发", "出发", "起点", "发货地", "寄出地", "发出地"]
            .iter()
            .any(|w| d.contains(w));
    let destination = ["destination", "dest", "target"].iter().any(|w| name.contains(w))
        || ["目的", "到达", "终点", "收货地", "寄达"].iter().any(|w| d.contains(w));
    match (origin, destination) {
        (true, false) => Some(Leg::Origin),
        (false, true) => Some(Leg::Destination),
        _ => None,
    }
}

/// The English word next to a byte position, lowercased: the last word before it, or the first after it.
fn english_word(text: &str, before: bool) -> Option<String> {
    let trimmed = if before { text.trim_end() } else { text.trim_start() };
    let words = wenshu_lexicon::english::words(trimmed);
    let word = if before { words.last() } else { words.first() }?;
    let touches = if before {
        word.range.end == trimmed.len()
    } else {
        word.range.start == 0
    };
    touches.then(|| word.text.clone())
}

/// The role of one place named in `question`, from the words around it.
fn role(question: &str, hit: &PlaceHit) -> Option<Leg> {
    let before = question.get(..hit.range.start).unwrap_or_default();
    let after = question.get(hit.range.end..).unwrap_or_default();
    let english_before = english_word(before, true);
    let is = |word: &Option<String>, list: &[&str]| word.as_deref().is_some_and(|w| list.contains(&w));
    if is(&english_before, ENGLISH_FROM_BEFORE) {
        return Some(Leg::Origin);
    }
    if is(&english_before, ENGLISH_TO_BEFORE) {
        return Some(Leg::Destination);
    }
    if is(&english_word(after, false), ENGLISH_FROM_AFTER) {
        return Some(Leg::Origin);
    }
    if FROM_BEFORE.iter().any(|w| before.ends_with(w)) {
        return Some(Leg::Origin);
    }
    if TO_BEFORE.iter().any(|w| before.ends_with(w)) {
        return Some(Leg::Destination);
    }
    FROM_AFTER.iter().any(|w| after.starts_with(w)).then_some(Leg::Origin)
}

/// The city the question names in `leg`, with the words.
pub fn city_in(leg: Leg, question: &str, places: &[PlaceHit]) -> Option<(String, String)> {
    places.iter().find(|hit| role(question, hit) == Some(leg)).map(|hit| {
        let name = hit.place.city.clone().unwrap_or_else(|| hit.place.province.clone());
        let words = question.get(hit.range.clone()).unwrap_or_default().to_string();
        (name, words)
    })
}

#[cfg(test)]
mod tests {
    use wenshu_lexicon::place::scan_places;

    use super::*;

    fn legs(question: &str) -> (Option<String>, Option<String>) {
        let places = scan_places(question);
        (
            city_in(Leg::Origin, question, &places).map(|c| c.0),
            city_in(Leg::Destination, question, &places).map(|c| c.0),
        )
    }

    #[test]
    fn roles_from_the_words_around() {
        assert_eq!(legs("从杭州发往西安的包裹"), (Some("杭州".into()), Some("西安".into())));
        assert_eq!(legs("杭州到西安的件"), (Some("杭州".into()), Some("西安".into())));
        assert_eq!(legs("发西安的件"), (None, Some("西安".into())));
        assert_eq!(legs("杭州发出的件"), (Some("杭州".into()), None));
        assert_eq!(legs("杭州的件"), (None, None));
        assert_eq!(
            legs("parcels from Hangzhou to Xi'an"),
            (Some("杭州".into()), Some("西安".into()))
        );
        assert_eq!(
            legs("Hangzhou to Xi'an parcels"),
            (Some("杭州".into()), Some("西安".into()))
        );
        assert_eq!(legs("parcels sent to Hangzhou"), (None, Some("杭州".into())));
        assert_eq!(legs("Hangzhou parcels"), (None, None));
    }
}
