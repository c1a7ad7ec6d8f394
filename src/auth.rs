//! Credentials (`ZEROPS_TOKEN`, else zcli's `cli.data`) and project discovery.
