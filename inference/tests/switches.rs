//! The vendored kernels' benchmark switches come from ndb's environment,
//! read once at the first model load and handed to the fork (which reads no
//! environment itself). Its own test binary: the switches are process-wide.

#[test]
fn the_benchmark_switches_in_the_environment_reach_the_fork() {
    assert!(!mistralrs_core::ndb_forward_on_caller());
    assert_eq!(mistralrs_core::cpu_attention_kernel(), "ndb");
    assert!(mistralrs_core::ndb_fast_forward_on());
    // Set before any thread of this binary reads the environment.
    std::env::set_var("NDB_FORWARD", "caller");
    std::env::set_var("NDB_ATTENTION", "upstream");
    std::env::set_var("NDB_FAST_FORWARD", "off");
    ndb_inference::neural::benchmark_switches_from_env();
    assert!(mistralrs_core::ndb_forward_on_caller());
    assert_eq!(mistralrs_core::cpu_attention_kernel(), "upstream");
    assert!(!mistralrs_core::ndb_fast_forward_on());
    // Read once: a later change of the environment changes nothing.
    std::env::set_var("NDB_FORWARD", "pool");
    ndb_inference::neural::benchmark_switches_from_env();
    assert!(mistralrs_core::ndb_forward_on_caller());
}
