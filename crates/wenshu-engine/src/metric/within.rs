//! How the first rows of each group read: a headline that says the groups, the ranked things and how many each
//! keeps (`2026-10-01～2026-10-31，每个地区销售额最高的 1 个产品`), and bars of the ranked things split by group.

use wenshu_contract::metric::{MetricModel, OrderDir, ResolvedQuery};

use super::present::{ColumnKind, Presentation, measure_label};

/// Sets the headline and chart of an answer of the first rows of each group; other answers are left as they are.
pub(super) fn present(model: &MetricModel, query: &ResolvedQuery, period: Option<&str>, out: &mut Presentation) {
    let (Some((groups, keep)), Some((position, dir))) = (query.within, query.order) else {
        return;
    };
    let group_label = match groups {
        Some(d) => model.dimensions[d].label.clone(),
        None => query.grain.map_or_else(String::new, |g| g.label().to_string()),
    };
    let group_column = out.columns.iter().position(|c| match groups {
        Some(_) => c.kind == ColumnKind::Dimension && c.label == group_label,
        None => c.kind == ColumnKind::Time,
    });
    let ranked = out
        .columns
        .iter()
        .enumerate()
        .find(|(i, c)| Some(*i) != group_column && matches!(c.kind, ColumnKind::Dimension | ColumnKind::Time));
    let ranked_label = ranked.map_or_else(String::new, |(_, c)| c.label.clone());
    let measure = measure_label(model, query, position);
    let (zh_end, en_end) = match dir {
        OrderDir::Desc => ("最高", "highest"),
        OrderDir::Asc => ("最低", "lowest"),
    };
    let (zh, en) = (
        format!("每个{group_label}{measure}{zh_end}的 {keep} 个{ranked_label}"),
        format!("the {keep} {ranked_label} with the {en_end} {measure} in each {group_label}"),
    );
    out.headline = Some(match period {
        Some(p) => format!("{p}，{zh}"),
        None => zh,
    });
    out.headline_en = Some(match period {
        Some(p) => format!("{p}: {en}"),
        None => en,
    });
    out.chart.kind = super::present::ChartKind::Bar;
    out.chart.x = ranked.map(|(i, _)| i);
    out.chart.group = group_column;
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::metric::MetricQuery;
    use wenshu_sql::metric::compile;

    use super::*;
    use crate::metric::present::{ChartKind, chart, plain_columns};

    #[test]
    fn the_first_rows_of_each_group_read_with_their_groups_and_bars_split_by_them() {
        let catalog = wenshu_contract::demo_catalog().unwrap();
        let model = catalog
            .get("sales_metrics")
            .unwrap()
            .extensions()
            .metrics
            .clone()
            .unwrap();
        let query: MetricQuery = serde_json::from_value(json!({"measures": [{"name": "销量"}],
            "groupBy": ["地区", "产品"], "order": {"measure": "销量", "direction": "desc"},
            "within": {"dimension": "地区", "limit": 2}}))
        .unwrap();
        let resolved = query.resolve(&model).unwrap();
        let compiled = compile(
            &model,
            &resolved,
            &[],
            None,
            &[None],
            wenshu_sql::dialect::Dialect::Sqlite,
        );
        let columns = plain_columns(&model, &resolved, &compiled.columns);
        let mut out = Presentation {
            headline: None,
            headline_en: None,
            chart: chart(&columns, 10),
            columns,
        };
        present(&model, &resolved, Some("2026-10-01～2026-10-31"), &mut out);
        assert_eq!(
            out.headline.as_deref(),
            Some("2026-10-01～2026-10-31，每个地区销量最高的 2 个产品")
        );
        assert!(out.headline_en.unwrap().contains("in each 地区"));
        assert_eq!(
            (out.chart.kind, out.chart.x, out.chart.group),
            (ChartKind::Bar, Some(1), Some(0))
        );
    }
}
