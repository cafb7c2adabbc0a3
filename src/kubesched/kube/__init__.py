"""The only package that speaks HTTP to the API server (and, for `kubesched explain`, to a
scheduler's secure port with the kubeconfig's credentials: `scheduler_port`)."""
