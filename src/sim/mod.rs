//! A wire-faithful Zerops API simulator on loopback, for tests and `zcp --demo`.
