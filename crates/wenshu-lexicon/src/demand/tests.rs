use jiff::civil::date;

use super::*;

fn of(text: &str) -> Vec<Demand> {
    demands_of(text, date(2026, 11, 29))
}

fn kinds(text: &str) -> Vec<DemandKind> {
    of(text).into_iter().map(|d| d.kind).collect()
}

fn group_targets(text: &str) -> Vec<(Option<Grain>, Option<String>)> {
    of(text)
        .into_iter()
        .filter_map(|d| match d.kind {
            DemandKind::Group { grain } => Some((grain, d.target)),
            _ => None,
        })
        .collect()
}

fn rank(text: &str) -> Option<Demand> {
    of(text).into_iter().find(|d| d.is_rank())
}

#[test]
fn groupings_name_their_dimension() {
    assert_eq!(group_targets("各仓库的库存"), vec![(None, Some("仓库".into()))]);
    assert_eq!(
        group_targets("每个客户分别下了多少单"),
        vec![(None, Some("客户".into()))]
    );
    assert_eq!(group_targets("按城市统计投诉"), vec![(None, Some("城市".into()))]);
    assert_eq!(group_targets("请分门店看一下"), vec![(None, Some("门店".into()))]);
    assert_eq!(
        group_targets("哪些供应商延迟交货"),
        vec![(None, Some("供应商延".into()))]
    );
    assert_eq!(
        group_targets("revenue by warehouse last month"),
        vec![(None, Some("warehouse".into()))]
    );
    assert_eq!(
        group_targets("sales per the region"),
        vec![(None, Some("region".into()))]
    );
}

#[test]
fn time_grains() {
    assert_eq!(
        group_targets("上周每天的访问量"),
        vec![(Some(Grain::Day), Some("天".into()))]
    );
    assert_eq!(
        group_targets("按月统计一下去年的退款"),
        vec![(Some(Grain::Month), Some("月".into()))]
    );
    assert_eq!(
        group_targets("今年每个季度的利润"),
        vec![(Some(Grain::Quarter), Some("季度".into()))]
    );
    assert_eq!(
        group_targets("最近四周每周的客流"),
        vec![(Some(Grain::Week), Some("周".into()))]
    );
    assert_eq!(
        group_targets("入库量，按周汇总"),
        vec![(Some(Grain::Week), Some("周".into()))]
    );
    assert_eq!(group_targets("是哪几天"), vec![(Some(Grain::Day), Some("天".into()))]);
    assert_eq!(
        group_targets("monthly revenue by month"),
        vec![(Some(Grain::Month), Some("month".into()))]
    );
}

#[test]
fn the_day_of_the_week_in_english_is_one_target_and_no_daily_grouping() {
    for q in ["fee by day of week last month", "fee by day of the week last month"] {
        let targets = group_targets(q);
        assert_eq!(targets.len(), 1, "{q}: {targets:?}");
        assert_eq!(targets[0].0, None, "{q}: no grain");
        assert!(
            targets[0].1.as_deref().is_some_and(|t| t.starts_with("day of")),
            "{q}: {targets:?}"
        );
    }
    assert_eq!(group_targets("fee by day")[0].0, Some(Grain::Day));
}

#[test]
fn each_before_a_thing_is_kept_for_the_catalog_to_read() {
    // 每单运费: per order (a ratio) or a measure's own word — never dropped, so no tool answers it as a total.
    assert_eq!(group_targets("每单运费"), vec![(None, Some("单运费".into()))]);
    // 逐 takes a time grain only.
    assert!(group_targets("逐单运费").is_empty());
    // Before a threshold the words are its measure: each record's (每单金额超过5万的订单), no grouping.
    assert!(group_targets("每单金额超过5万的订单有多少").is_empty());
}

#[test]
fn words_that_look_like_groupings_are_not() {
    assert!(group_targets("部分客户按时付款了吗").is_empty());
    assert!(group_targets("五分钟前的订单").is_empty());
    assert!(group_targets("在哪里").is_empty());
    // A time expression is no grouping (上个月 holds 个月).
    assert!(group_targets("上个月的利润").is_empty());
}

#[test]
fn each_without_target_only_alone() {
    assert_eq!(group_targets("甲和乙的利润各是多少"), vec![(None, None)]);
    assert_eq!(group_targets("各门店分别卖了多少"), vec![(None, Some("门店".into()))]);
}

#[test]
fn superlatives_and_top_n() {
    let d = rank("上季度利润最高的门店是哪家").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Highest,
            top: None
        }
    );
    assert_eq!(d.measure.as_deref(), Some("利润"));
    assert_eq!(d.target.as_deref(), Some("门店"));
    let d = rank("本月投诉最少的客服").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Lowest,
            top: None
        }
    );
    assert_eq!(d.measure.as_deref(), Some("投诉"));
    let d = rank("上个月销量排前三的店员是谁").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Highest,
            top: Some(3)
        }
    );
    assert_eq!(d.measure.as_deref(), Some("销量"));
    assert_eq!(d.target.as_deref(), Some("店员"));
    let d = rank("访问量排名前五的页面").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Highest,
            top: Some(5)
        }
    );
    let d = rank("准时率倒数三名的司机").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Lowest,
            top: Some(3)
        }
    );
    assert_eq!(d.target.as_deref(), Some("司机"));
    let d = rank("评价人数最多的是哪部片子").unwrap();
    assert_eq!(d.measure.as_deref(), Some("评价人数"));
    assert_eq!(d.target.as_deref(), Some("片子"));
    let d = rank("top 3 stores by revenue").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Highest,
            top: Some(3)
        }
    );
    assert_eq!(d.measure.as_deref(), Some("revenue"));
    assert!(group_targets("top 3 stores by revenue").is_empty());
    let d = rank("准时率最低的5个司机").unwrap();
    assert_eq!(d.target.as_deref(), Some("司机"));
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Lowest,
            top: Some(5)
        }
    );
    let d = rank("今年利润最高的十家门店").unwrap();
    assert_eq!(
        d.kind,
        DemandKind::Rank {
            order: Order::Highest,
            top: Some(10)
        }
    );
    assert!(rank("卖得最好的是哪款").is_some());
    assert!(rank("谁接的电话最多").is_some());
}

#[test]
fn a_first_n_beside_a_list_is_its_length() {
    assert!(rank("上周的退款明细，给我前50条").is_none());
    assert!(rank("list the refunds last month, top 30").is_none());
    assert!(rank("最近的订单前十条").is_none());
    assert!(rank("明细里金额最高的").is_some());
}

#[test]
fn extremes_rank_with_which_else_aggregate() {
    assert!(rank("哪个门店的面积最大").is_some());
    assert_eq!(
        kinds("单笔退款最大是多少"),
        vec![DemandKind::Aggregate { of: Aggregate::Max }]
    );
}

#[test]
fn comparisons() {
    assert!(kinds("甲店和乙店的利润对比").contains(&DemandKind::Compare));
    assert!(kinds("甲店和乙店的利润对比").contains(&DemandKind::Joined));
    assert!(kinds("A vs B").contains(&DemandKind::Compare));
    assert_eq!(
        kinds("本季度利润环比怎么样"),
        vec![DemandKind::Period {
            baseline: Baseline::Previous
        }]
    );
    assert_eq!(
        kinds("客流同比去年如何"),
        vec![DemandKind::Period {
            baseline: Baseline::YearAgo
        }]
    );
    assert!(kinds("和去年同期比").contains(&DemandKind::Period {
        baseline: Baseline::YearAgo
    }));
    let named: Vec<Demand> = of("今年的利润比去年多还是少");
    let d = named
        .iter()
        .find(|d| {
            d.kind
                == DemandKind::Period {
                    baseline: Baseline::Named,
                }
        })
        .unwrap();
    assert_eq!(d.target.as_deref(), Some("去年"));
    assert!(named.iter().any(|d| d.kind == DemandKind::Compare));
    assert!(kinds("本月比上个月涨了多少").contains(&DemandKind::Change));
    assert!(kinds("本月跟上月比").contains(&DemandKind::Period {
        baseline: Baseline::Named
    }));
    assert!(kinds("revenue year over year").contains(&DemandKind::Period {
        baseline: Baseline::YearAgo
    }));
}

#[test]
fn aggregates() {
    assert_eq!(
        kinds("会员的平均消费"),
        vec![DemandKind::Aggregate { of: Aggregate::Average }]
    );
    assert_eq!(
        kinds("线上渠道的占比"),
        vec![DemandKind::Aggregate { of: Aggregate::Share }]
    );
    let count = of("昨天一共成交了多少单");
    assert!(
        count
            .iter()
            .any(|d| d.kind == DemandKind::Aggregate { of: Aggregate::Total })
    );
    let c = count
        .iter()
        .find(|d| d.kind == DemandKind::Aggregate { of: Aggregate::Count })
        .unwrap();
    assert_eq!(c.target.as_deref(), Some("单"));
    assert!(kinds("有几个司机迟到").contains(&DemandKind::Aggregate { of: Aggregate::Count }));
    assert!(kinds("去年的订单量").contains(&DemandKind::Aggregate { of: Aggregate::Count }));
    assert!(kinds("how many refunds").contains(&DemandKind::Aggregate { of: Aggregate::Count }));
    // Goods are a quantity, not a count; 多少钱 is an amount.
    assert!(kinds("卖了多少套").is_empty());
    assert!(kinds("运费多少钱").is_empty());
}

#[test]
fn thresholds() {
    let d = of("单笔金额超过10万的退款");
    assert_eq!(
        d[0].kind,
        DemandKind::Threshold {
            op: ThresholdOp::Above,
            value: 100_000.0
        }
    );
    assert_eq!(d[0].measure.as_deref(), Some("单笔金额"));
    let d = of("派件不少于五百单的司机");
    assert_eq!(
        d[0].kind,
        DemandKind::Threshold {
            op: ThresholdOp::AtLeast,
            value: 500.0
        }
    );
    let d = of("客单价100元以上的会员");
    assert_eq!(
        d[0].kind,
        DemandKind::Threshold {
            op: ThresholdOp::AtLeast,
            value: 100.0
        }
    );
    assert_eq!(d[0].measure.as_deref(), Some("客单价"));
    let d = of("orders with revenue below 5000");
    assert_eq!(
        d[0].kind,
        DemandKind::Threshold {
            op: ThresholdOp::Below,
            value: 5000.0
        }
    );
    // A time expression is no threshold's number.
    assert!(kinds("最近7天以内的退款").is_empty());
    assert!(kinds("超过").is_empty());
}

#[test]
fn lists() {
    assert_eq!(kinds("张三上个月的报销明细"), vec![DemandKind::List]);
    assert_eq!(kinds("把超时的列出来"), vec![DemandKind::List]);
    assert_eq!(kinds("list the refunds"), vec![DemandKind::List]);
}

#[test]
fn spans_point_at_the_words() {
    let text = "上个月各门店的利润";
    let d = &of(text)[0];
    assert_eq!(&text[d.range.clone()], "各门店");
    assert_eq!(d.words, "各");
}

#[test]
fn plain_questions_demand_nothing() {
    assert!(kinds("华东区本月的利润是多少").is_empty());
    assert!(kinds("张三的报销情况").is_empty());
    assert!(kinds("").is_empty());
}

#[test]
fn demands_serialize() {
    let json = serde_json::to_string(&of("前三名")).unwrap_or_default();
    assert_eq!(
        json,
        r#"[{"kind":"rank","order":"highest","top":3,"range":{"start":0,"end":9},"words":"前三名","target":null,"measure":null}]"#
    );
}

#[test]
fn ordinal_places_are_their_own_demand() {
    for q in [
        "评分第二高的酒店",
        "投诉排第三的城市",
        "这家店的客流排名第五",
        "他的业绩排第几",
        "排在第几位",
        "第3多的品类",
    ] {
        assert!(kinds(q).contains(&DemandKind::Ordinal), "{q}: {:?}", kinds(q));
    }
    for q in ["第三季度的客流", "今年第二个月的订单", "第一次下单的客户"] {
        assert!(!kinds(q).contains(&DemandKind::Ordinal), "{q}: {:?}", kinds(q));
    }
}

#[test]
fn totals_over_a_range_are_read() {
    let total = DemandKind::Aggregate { of: Aggregate::Total };
    for q in [
        "上周一共卖了多少杯",
        "本季度的总客流",
        "how much revenue did the store make last week",
        "去年累计发货",
    ] {
        assert!(kinds(q).contains(&total), "{q}: {:?}", kinds(q));
    }
    assert!(!kinds("上周每天的客流").contains(&total));
}

#[test]
fn a_superlatives_places_after_de_are_part_of_its_range() {
    let text = "本月销量最高的五家门店";
    let d = rank(text).unwrap();
    assert_eq!(&text[d.range.clone()], "最高的五家");
    assert_eq!(d.words, "最高");
}

#[test]
fn a_ranking_inside_each_group_names_the_groups() {
    // The group's word as read (up to four characters: 仓库库存 starts with 仓库).
    let within = |text: &str| {
        rank(text)
            .and_then(|d| d.within)
            .map(|w| w.chars().take(2).collect::<String>())
    };
    // Words of no catalog: 仓库, 商品, 门店, 员工, 城市, 线路.
    assert_eq!(within("每个仓库库存最高的商品").as_deref(), Some("仓库"));
    assert_eq!(within("各门店营业额前三的员工").as_deref(), Some("门店"));
    assert_eq!(within("各城市中投诉最多的两条线路").as_deref(), Some("城市"));
    assert_eq!(within("每个月哪个门店营业额最高").as_deref(), Some("月"));
    assert_eq!(within("top 3 stores by revenue in each city").as_deref(), Some("ci"));
    assert_eq!(within("the best courier per city").as_deref(), Some("ci"));
    // A ranking of the groups themselves, or a grouping that does not distribute, splits nothing.
    assert_eq!(within("每个仓库的库存排名"), None);
    assert_eq!(within("各门店营业额前三"), None);
    assert_eq!(within("营业额最高的门店"), None);
    assert_eq!(within("按城市看投诉最多的线路"), None);
    assert_eq!(within("哪个门店营业额最高"), None);
}

fn sort(text: &str) -> Option<(Option<Order>, Option<String>)> {
    of(text).into_iter().find_map(|d| match d.kind {
        DemandKind::Sort { order } => Some((order, d.target)),
        _ => None,
    })
}

#[test]
fn a_sort_is_by_the_grouping_word_beside_it() {
    assert_eq!(sort("各仓库的库存按仓库排序"), Some((None, Some("仓库".into()))));
    assert_eq!(
        sort("按城市升序排列的投诉数"),
        Some((Some(Order::Lowest), Some("城市".into())))
    );
    assert_eq!(
        sort("投诉数按城市进行降序排序"),
        Some((Some(Order::Highest), Some("城市".into())))
    );
    assert_eq!(
        sort("complaints by city sorted by city"),
        Some((None, Some("city".into())))
    );
    assert_eq!(
        sort("complaints sorted by city descending").map(|s| s.1),
        Some(Some("city".into()))
    );
    // No grouping word beside it: the order's subject is read elsewhere (a measure before it).
    assert_eq!(sort("投诉数排序"), Some((None, None)));
    assert_eq!(sort("按城市统计投诉"), None);
}

#[test]
fn an_accumulating_total_beside_a_time_grouping_is_running() {
    assert!(kinds("今年每月的累计投诉数").contains(&DemandKind::Cumulative));
    assert!(kinds("cumulative monthly complaints").contains(&DemandKind::Cumulative));
    // Without a time grouping it is the period's total.
    assert!(!kinds("今年累计投诉数").contains(&DemandKind::Cumulative));
    assert!(kinds("今年累计投诉数").contains(&DemandKind::Aggregate { of: Aggregate::Total }));
}

#[test]
fn a_day_of_the_week_is_no_weekly_grouping() {
    assert_eq!(group_targets("按星期几统计投诉"), vec![(None, Some("星期几".into()))]);
    assert_eq!(
        group_targets("按星期统计投诉"),
        vec![(Some(Grain::Week), Some("星期".into()))]
    );
}

fn relative(text: &str) -> Option<(ThresholdOp, Option<String>, Option<String>)> {
    of(text).into_iter().find_map(|d| match d.kind {
        DemandKind::Relative { op, .. } => Some((op, d.target, d.measure)),
        _ => None,
    })
}

#[test]
fn a_comparison_with_the_mean_names_the_rows_it_is_taken_over() {
    assert_eq!(
        relative("投诉数高于平均水平的仓库有哪些"),
        Some((ThresholdOp::Above, None, Some("投诉数".into())))
    );
    assert_eq!(
        relative("哪些仓库的投诉数低于平均").map(|r| r.0),
        Some(ThresholdOp::Below)
    );
    assert_eq!(
        relative("投诉数超过所在城市平均的仓库").map(|r| r.1),
        Some(Some("城市".into()))
    );
    assert_eq!(
        relative("投诉数高于所在城市的平均值的仓库").map(|r| r.1),
        Some(Some("城市".into()))
    );
    assert_eq!(
        relative("warehouses with complaints above average").map(|r| r.0),
        Some(ThresholdOp::Above)
    );
    assert_eq!(
        relative("warehouses with complaints below the average").map(|r| r.0),
        Some(ThresholdOp::Below)
    );
    // A number is a threshold, and the mean of a measure alone is an aggregate.
    assert_eq!(relative("投诉数超过100的仓库"), None);
    assert!(!kinds("投诉数高于平均的仓库").contains(&DemandKind::Aggregate { of: Aggregate::Average }));
    assert!(kinds("各仓库的平均投诉数").contains(&DemandKind::Aggregate { of: Aggregate::Average }));
}

#[test]
fn a_pace_superlative_ranks_only_a_change() {
    assert!(rank("本月哪个仓库的投诉数环比增长最快").is_some());
    assert!(rank("哪个仓库的投诉数同比下降最慢").is_some());
    // 最快 with no change before it ranks nothing the lexicon can name (a speed no measure spells).
    assert!(rank("哪个快递员送得最快").is_none());
}

#[test]
fn a_grouping_word_ends_where_a_cue_word_begins() {
    // 人均 after the grouping's word is a demand of its own, never part of the word (产品人).
    assert_eq!(group_targets("今年各仓库人均投诉数"), vec![(None, Some("仓库".into()))]);
    assert!(kinds("今年各仓库人均投诉数").contains(&DemandKind::Aggregate { of: Aggregate::Average }));
    assert_eq!(group_targets("各门店数量"), vec![(None, Some("门店".into()))]);
}
