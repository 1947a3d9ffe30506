//! The one place that owns the terminal: raw mode, alternate screen, mouse capture and bracketed
//! paste on entry; restored on drop (normal exit and every error path) and from the panic hook;
//! suspended around `$EDITOR`. A thread forwards terminal events to the runtime's channel; it
//! parks while the terminal is suspended so the editor gets every key.

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;
use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The terminal, restored when dropped.
pub struct Tui {
    /// The ratatui terminal.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    paused: Arc<AtomicBool>,
    parked: Option<Receiver<()>>,
    input: Option<JoinHandle<()>>,
}

/// Puts the terminal back: cooked mode, main screen, no mouse capture, cursor shown.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        LeaveAlternateScreen,
        DisableMouseCapture,
        DisableBracketedPaste,
        ratatui::crossterm::cursor::Show
    );
}

fn setup() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
}

impl Tui {
    /// Enters the explorer's terminal mode and installs a panic hook that restores first.
    pub fn enter() -> io::Result<Tui> {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            hook(info);
        }));
        if let Err(e) = setup() {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(mut terminal) => {
                let _ = terminal.clear();
                Ok(Tui {
                    terminal,
                    paused: Arc::new(AtomicBool::new(false)),
                    parked: None,
                    input: None,
                })
            }
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }

    /// Starts the thread that forwards terminal events (`Ok`) or a read failure (`Err`) to `tx`.
    /// It waits on the terminal (a quarter second at a time, to notice a suspension) and sends
    /// nothing else.
    pub fn forward_events<M: Send + 'static>(
        &mut self,
        tx: Sender<M>,
        wrap: fn(io::Result<Event>) -> M,
    ) {
        let paused = self.paused.clone();
        let (ack_tx, ack_rx) = channel();
        self.parked = Some(ack_rx);
        self.input = Some(std::thread::spawn(move || loop {
            if paused.load(Ordering::Acquire) {
                let _ = ack_tx.send(());
                while paused.load(Ordering::Acquire) {
                    std::thread::park();
                }
                continue;
            }
            match event::poll(Duration::from_millis(250)) {
                Ok(false) => {}
                Ok(true) => {
                    let ev = event::read();
                    let failed = ev.is_err();
                    if tx.send(wrap(ev)).is_err() || failed {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(wrap(Err(e)));
                    return;
                }
            }
        }));
    }

    /// Writes raw bytes to the terminal (OSC 52).
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let out = self.terminal.backend_mut();
        out.write_all(bytes)?;
        out.flush()
    }

    /// Gives the terminal to `run` (an editor): the event thread parks, the terminal is restored,
    /// then taken back and redrawn whatever `run` did.
    pub fn suspended<T>(&mut self, run: impl FnOnce() -> T) -> io::Result<T> {
        self.paused.store(true, Ordering::Release);
        if let Some(rx) = &self.parked {
            let _ = rx.recv_timeout(Duration::from_secs(2));
        }
        restore();
        let out = run();
        let back = setup();
        self.paused.store(false, Ordering::Release);
        if let Some(h) = &self.input {
            h.thread().unpark();
        }
        back?;
        self.terminal.clear()?;
        Ok(out)
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
    }
}
