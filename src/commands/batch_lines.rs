//! The lines headless runs and `rejudge` print about batches (batch mode): one when a
//! batch opens or moves on, one when it closes, never the same line twice in a row.

use std::collections::HashMap;

use ethics_bowl::providers::BatchView;
use ethics_bowl::sanitize::sanitize;

/// The open batches as last told, to say only what changed.
#[derive(Default)]
pub struct BatchLines {
    /// By the provider's batch id: what was said of it.
    told: HashMap<String, String>,
}

impl BatchLines {
    /// A line for each batch that is new or moved on, and for each that closed.
    pub fn changes(&mut self, open: &[BatchView]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut now = HashMap::new();
        for b in open {
            let failed = if b.failed > 0 {
                format!(", {} failed", b.failed)
            } else {
                String::new()
            };
            let state = format!(
                "{}/{} done{failed}, {}",
                b.succeeded,
                b.requests,
                sanitize(&b.state)
            );
            if self.told.get(&b.remote) != Some(&state) {
                let next = b
                    .next_poll_in
                    .map(|d| format!("; next poll in {:.0} s", d.as_secs_f64()))
                    .unwrap_or_default();
                lines.push(format!(
                    "batch: {} ({}) {}: {state}, open {:.0} s{next}",
                    sanitize(&b.model),
                    b.provider,
                    sanitize(&b.remote),
                    b.age.as_secs_f64()
                ));
            }
            now.insert(b.remote.clone(), state);
        }
        for remote in self.told.keys().filter(|r| !now.contains_key(*r)) {
            lines.push(format!("batch: {} closed", sanitize(remote)));
        }
        self.told = now;
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn batch_lines_say_what_is_new_moved_on_or_closed() {
        use ethics_bowl::providers::BatchView;
        let view = |succeeded: u64| BatchView {
            model: "gpt".into(),
            provider: "openai",
            remote: "batch_1".into(),
            requests: 10,
            succeeded,
            failed: 0,
            state: "in_progress".into(),
            age: Duration::from_secs(30),
            next_poll_in: Some(Duration::from_secs(5)),
        };
        let mut lines = BatchLines::default();
        assert_eq!(
            lines.changes(&[view(0)]),
            ["batch: gpt (openai) batch_1: 0/10 done, in_progress, open 30 s; next poll in 5 s"]
        );
        assert!(lines.changes(&[view(0)]).is_empty(), "nothing new");
        assert_eq!(lines.changes(&[view(4)]).len(), 1);
        assert_eq!(lines.changes(&[]), ["batch: batch_1 closed"]);
    }
}
