//! A dialog driving its work, and a dialog held across a TAN or an
//! approval in the bank's app (HKTAN).

use super::jobs::{next_after, Output, Run};
use super::message::Response;
use super::syntax::{Element, Segment};
use super::{error_of, Challenge, Error, Job, Outcome, Step, MAX_APPROVAL_WAIT};
use crate::config::Secret;
use std::marker::PhantomData;
use std::time::Duration;

/// A dialog waiting for a TAN or an approval: hold it across requests,
/// then [`send_tan`](Pending::send_tan) or [`poll`](Pending::poll).
/// Dropping it ends the dialog.
pub struct Pending<T> {
    run: Run,
    challenge: Challenge,
    _output: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

impl<T: Output> Pending<T> {
    pub fn challenge(&self) -> &Challenge {
        &self.challenge
    }

    /// Sends the typed TAN (HKTAN process 2) and goes on.
    pub async fn send_tan(mut self, tan: &Secret) -> Result<Outcome<T>, Error> {
        let hktan = self.run.hktan_answer("2")?;
        let sf = self.run.dialog.security_function();
        let r = self
            .run
            .dialog
            .send_signed(vec![hktan], &sf, Some(tan.expose()))
            .await;
        let r = self.run.finish_on_error(r).await?;
        self.run.take_or_end(&r).await?;
        self.run.drive().await
    }

    /// Asks whether the approval was given (HKTAN process `S`): the same
    /// pending dialog again while the bank still waits (3956).
    pub async fn poll(mut self) -> Result<Outcome<T>, Error> {
        let hktan = self.run.hktan_answer("S")?;
        let sf = self.run.dialog.security_function();
        let r = self.run.dialog.send_signed(vec![hktan], &sf, None).await;
        let r = self.run.finish_on_error(r).await?;
        if r.has("3956") {
            return Ok(Outcome::NeedTan(Box::new(self)));
        }
        self.run.take_or_end(&r).await?;
        self.run.drive().await
    }

    /// Polls at the bank's interval until the approval is given, at most
    /// [`MAX_APPROVAL_WAIT`].
    pub async fn wait_for_approval(self) -> Result<Outcome<T>, Error> {
        let deadline = tokio::time::Instant::now() + MAX_APPROVAL_WAIT;
        let mut pending = self;
        loop {
            let wait = pending.challenge.poll_after.max(Duration::from_secs(1));
            if tokio::time::Instant::now() + wait > deadline {
                pending.cancel().await;
                return Err(Error::ApprovalTimedOut);
            }
            tokio::time::sleep(wait).await;
            match pending.poll().await? {
                Outcome::NeedTan(p) if p.challenge.decoupled => pending = *p,
                other => return Ok(other),
            }
        }
    }

    /// Ends the dialog now.
    pub async fn cancel(mut self) {
        self.run.dialog.end().await;
    }
}

impl Run {
    fn hktan_answer(&self, process: &str) -> Result<Segment, Error> {
        let reference = self.pending_reference.clone();
        let version = self.tan_version();
        let mut elements = vec![
            Element::text(process),
            Element::empty(),
            Element::empty(),
            Element::empty(),
            Element::text(&reference),
        ];
        if version == 5 {
            // Version 5 has the TAN list number before "another TAN follows".
            elements.push(Element::empty());
        }
        elements.push(Element::text("N"));
        Ok(Segment::new("HKTAN", version, elements))
    }
    /// Sends the job's requests until it is finished or a TAN is needed.
    pub(super) async fn drive<T: Output>(mut self) -> Result<Outcome<T>, Error> {
        loop {
            let step = self.job.step();
            if step == Step::Finished {
                self.dialog.end().await;
                let state = self.dialog.take_state();
                let job = std::mem::replace(
                    &mut self.job,
                    Job::Connect {
                        step: Step::Finished,
                    },
                );
                return T::from_finished(job, state).map(Outcome::Done);
            }
            let Some(segments) = self.request(step) else {
                self.job.set_step(next_after(&self.job, step));
                continue;
            };
            if step == Step::Init {
                // From here on the dialog is ended whatever happens.
                self.dialog.open = true;
            }
            let sf = self.dialog.security_function();
            let r = self.dialog.send_signed(segments, &sf, None).await;
            let r = self.finish_on_error(r).await?;
            if let Some(challenge) = self.challenge_of(&r) {
                return Ok(Outcome::NeedTan(Box::new(Pending {
                    run: self,
                    challenge,
                    _output: PhantomData,
                })));
            }
            self.take_or_end(&r).await?;
        }
    }

    /// Takes what the answer holds; when it cannot be used, ends the
    /// dialog before the error is answered (not in the background after),
    /// so that a caller who settles on the error finds the dialog ended.
    async fn take_or_end(&mut self, r: &Response) -> Result<(), Error> {
        let taken = self.take(r);
        if taken.is_err() {
            self.dialog.end().await;
        }
        taken
    }

    /// Ends the dialog when the answer is an error or none came.
    async fn finish_on_error(&mut self, r: Result<Response, Error>) -> Result<Response, Error> {
        let e = match r {
            Ok(r) => match error_of(&r) {
                None => return Ok(r),
                Some(e) => e,
            },
            Err(e) => e,
        };
        if e != Error::Timeout {
            self.dialog.end().await;
        } else {
            // A bank that does not answer is not waited for twice.
            self.dialog.open = false;
        }
        Err(e)
    }

    /// The challenge when the answer asks for a TAN (0030) or an approval
    /// (3955); remembers the task's reference.
    fn challenge_of(&mut self, r: &Response) -> Option<Challenge> {
        let decoupled = r.has("3955");
        if !decoupled && !r.has("0030") {
            return None;
        }
        let hitan = r.first("HITAN")?;
        let reference = hitan.text(3, 0);
        if reference.is_empty() || reference == "noref" {
            return None;
        }
        self.pending_reference = reference;
        let method = self.dialog.state.chosen_tan_method();
        let poll = method.map_or(0, |m| m.poll_secs.max(m.first_poll_secs));
        let hhd_uc = hitan
            .element(5)
            .and_then(|e| e.0.first())
            .filter(|i| !i.bytes.is_empty())
            .map(|i| i.bytes.clone());
        Some(Challenge {
            text: hitan.text(4, 0),
            decoupled: decoupled || method.is_some_and(|m| m.decoupled),
            hhd_uc,
            poll_after: Duration::from_secs(u64::from(poll.max(1))),
        })
    }
}
