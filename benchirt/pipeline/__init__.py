"""Run the whole benchirt study: configuration, artifact store, executors and the stage wiring."""
