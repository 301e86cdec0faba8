//! Kinds of day (issue 26, shape 8): 按星期几 groups by the day of the week; 周末 / 工作日 keep the days of that
//! kind; both named (周末和工作日对比) split the rows into working days and weekends. Holidays need a holiday
//! calendar and stay refused.

use wenshu_contract::metric::{DayKind, DayPart, MetricQuery};
use wenshu_lexicon::demand::DemandKind;
use wenshu_lexicon::words::days::{KindOfDay, asks_weekday, day_kind_words, kind_of_day};

use super::Builder;

impl Builder<'_> {
    /// The day of the week grouped by, and the kinds of day named kept or split.
    pub(super) fn days(&mut self, query: &mut MetricQuery) {
        let weekday = self.demands.iter().any(|d| {
            matches!(d.kind, DemandKind::Group { grain: None }) && d.target.as_deref().is_some_and(asks_weekday)
        });
        if weekday {
            query.by_day = Some(DayPart::Weekday);
        }
        let mut kinds: Vec<KindOfDay> = Vec::new();
        for (range, word) in day_kind_words(&self.facts.question, &self.facts.spans) {
            match kind_of_day(word) {
                Some(kind) => {
                    self.read.push(range);
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                }
                None => {
                    self.reasons
                        .push(format!("不能只算{word}（没有节假日日历，只能分工作日和周末）"));
                    return;
                }
            }
        }
        match kinds.as_slice() {
            [] => {}
            [kind] => {
                query.days = Some(match kind {
                    KindOfDay::Weekend => DayKind::Weekend,
                    KindOfDay::Workday => DayKind::Workday,
                })
            }
            _ if query.by_day.is_none() => query.by_day = Some(DayPart::Weekend),
            _ => self.reasons.push("不能同时按星期几和工作日/周末分".into()),
        }
    }
}
