//! Re-aggregations the question asks for (平均, 总, 月均), means to date, and shares of the total.

use wenshu_contract::metric::{Grain, MetricQuery, Order, OrderDir, Reaggregate, Share};
use wenshu_lexicon::demand::{Aggregate, Demand, DemandKind};

use super::measures::{is_count, is_people};
use super::times::grain_of_char;
use super::{Builder, Mention, overlaps};

impl Builder<'_> {
    /// 人均 right after a dimension of people (销售人均销售额, 医生人均门诊量): each sum or count per distinct value of
    /// it. Whose heads 人均 counts is not general knowledge (customers, staff, patients…): without the people named
    /// right before it, it is refused, never divided by a guess.
    pub(super) fn per_person(&mut self, query: &mut MetricQuery, d: &Demand) {
        let q = &self.facts.question;
        let named = self.mentions.iter().find_map(|(r, m)| match m {
            Mention::Dimension(dim)
                if is_people(&self.model.dimensions[*dim])
                    && r.end <= d.range.start
                    && q.get(r.end..d.range.start)
                        .is_some_and(|between| matches!(between.trim(), "" | "的")) =>
            {
                Some(*dim)
            }
            _ => None,
        });
        let Some(person) = named else {
            let people: Vec<&str> = self
                .model
                .dimensions
                .iter()
                .filter(|dim| is_people(dim))
                .map(|dim| dim.label.as_str())
                .collect();
            self.reasons.push(match people.first() {
                Some(first) => format!("「人均」：不知道按哪种人平均（可以说「{first}人均…」）"),
                None => "「人均」：不能按人数求平均".into(),
            });
            return;
        };
        let label = self.model.dimensions[person].label.clone();
        self.divide_per(query, &label, |measure| format!("「人均」：{measure}不能按人数平均"));
    }

    /// Each measure per distinct value of the dimension `label` (`over`), when every one adds up; else the reason
    /// `refused` words for the first that does not.
    pub(super) fn divide_per(&mut self, query: &mut MetricQuery, label: &str, refused: impl Fn(&str) -> String) {
        if let Some(m) = query.measures.iter().find(|m| !self.adds_up(m)) {
            self.reasons.push(refused(&m.name));
            return;
        }
        for m in &mut query.measures {
            m.over = Some(label.to_string());
        }
    }

    /// Averages, shares, max and min; counts and totals are met by the measures.
    pub(super) fn aggregates(&mut self, query: &mut MetricQuery) {
        let asked: Vec<(Aggregate, Demand)> = self
            .demands
            .iter()
            .filter_map(|d| match d.kind {
                DemandKind::Aggregate { of } => Some((of, d.clone())),
                _ => None,
            })
            .collect();
        for (of, d) in asked {
            match of {
                Aggregate::Average => {
                    if query.measures.iter().any(|m| m.per.is_some()) || self.mean_of_threshold(&d) {
                        continue;
                    }
                    // 日均 / 月均: the mean per time bucket; 人均: per person, which no measure counts.
                    let per_bucket = match d.words.as_str() {
                        "日均" => Some(Grain::Day),
                        "周均" => Some(Grain::Week),
                        "月均" => Some(Grain::Month),
                        "年均" => Some(Grain::Year),
                        _ => None,
                    };
                    if let Some(grain) = per_bucket {
                        if query.time_range.is_none() || query.grain.is_some() {
                            self.reasons.push(format!("「{}」需要一个时间段", d.words));
                        } else {
                            query.measures.iter_mut().for_each(|m| m.per = Some(grain));
                        }
                        continue;
                    }
                    if d.words == "人均" {
                        self.per_person(query, &d);
                        continue;
                    }
                    for m in &mut query.measures {
                        let Some(i) = self.model.measure_index(&m.name) else {
                            continue;
                        };
                        let spec = &self.model.measures[i];
                        let own = spec.expr.single_aggregate().map(|(n, _)| n.to_string());
                        let is_avg = own.as_deref() == Some("avg")
                            || matches!(&spec.expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "avg");
                        if is_avg {
                            continue;
                        }
                        if spec.reaggregations.contains(&Reaggregate::Avg) {
                            m.aggregate = Some(Reaggregate::Avg);
                        } else {
                            self.reasons.push(format!("{}不支持求平均", spec.label));
                        }
                    }
                }
                Aggregate::Max | Aggregate::Min => {
                    let want = if of == Aggregate::Max {
                        Reaggregate::Max
                    } else {
                        Reaggregate::Min
                    };
                    // 日销售额的最大值: the largest daily total — the top bucket — not the largest record.
                    if let Some(grain) = self.bucket_of_measure() {
                        if query.grain.is_some() || query.order.is_some() || query.measures.len() != 1 {
                            self.reasons.push(format!(
                                "「{}」：不能在分组或排名之外再取按时间汇总的{}",
                                d.words,
                                want.label()
                            ));
                            continue;
                        }
                        query.grain = Some(grain);
                        query.order = Some(Order {
                            measure: query.measures[0].name.clone(),
                            direction: if of == Aggregate::Max {
                                OrderDir::Desc
                            } else {
                                OrderDir::Asc
                            },
                        });
                        query.limit = Some(1);
                        continue;
                    }
                    for m in &mut query.measures {
                        let Some(i) = self.model.measure_index(&m.name) else {
                            continue;
                        };
                        if self.model.measures[i].reaggregations.contains(&want) {
                            m.aggregate = Some(want);
                        } else {
                            self.reasons
                                .push(format!("{}不支持求{}", self.model.measures[i].label, want.label()));
                        }
                    }
                }
                // 占比超过10%: the share a threshold compares, set with it.
                Aggregate::Share
                    if self.demands.iter().any(|t| {
                        matches!(t.kind, DemandKind::Threshold { .. }) && self.share_before(t) == Some(d.range.clone())
                    }) => {}
                Aggregate::Share => {
                    let across: Vec<String> = if query.group_by.is_empty() {
                        query.filters.iter().map(|f| f.dimension.clone()).collect()
                    } else {
                        query.group_by.clone()
                    };
                    if across.is_empty() {
                        self.reasons.push("占比需要说明是谁的占比".into());
                    } else {
                        query.share = Some(Share { across });
                    }
                }
                Aggregate::Count => {
                    let covered = self.mentions.iter().any(|(r, m)| {
                        matches!(m, Mention::Measure(_))
                            && (overlaps(r, &d.range) || r.start <= d.range.start && d.range.end <= r.end)
                    });
                    let counted = query.measures.iter().any(|m| {
                        self.model
                            .measure_index(&m.name)
                            .is_some_and(|i| is_count(&self.model.measures[i].expr))
                    });
                    let by_target = d.target.as_deref().and_then(|t| self.measure_of(t)).is_some();
                    let distinct = self.distinct.iter().any(|(_, r)| overlaps(r, &d.range));
                    if !(covered || counted || by_target || distinct) {
                        self.reasons
                            .push(format!("不能数「{}」", d.target.as_deref().unwrap_or(&d.words)));
                    }
                }
                Aggregate::Total => {}
            }
        }
    }

    /// A mean per bucket over a period still running (本月日均, 今年平均每个月) is over the buckets so far: days
    /// after today have no rows and would lower it.
    pub(super) fn mean_to_date(&mut self, query: &mut MetricQuery) {
        let today = self.facts.today.to_string();
        if query.measures.iter().any(|m| m.per.is_some())
            && let Some(range) = &mut query.time_range
            && range.end > today
            && range.start <= today
        {
            range.end = today;
        }
    }

    /// The time bucket a measure's word is prefixed with (日销售额, 单日票房, 月销量): a total per bucket, not a
    /// record; none when the prefix belongs to a time expression (上个月销售额) or there is none.
    pub(super) fn bucket_of_measure(&self) -> Option<Grain> {
        let q = &self.facts.question;
        self.mentions.iter().find_map(|(r, m)| {
            if !matches!(m, Mention::Measure(_)) {
                return None;
            }
            let before = q.get(..r.start)?;
            let c = before.chars().next_back()?;
            let at = r.start - c.len_utf8();
            if self.facts.times.iter().any(|t| t.range.start <= at && at < t.range.end) {
                return None;
            }
            grain_of_char(c)
        })
    }
}
