//! One chat request (built in its own change).
