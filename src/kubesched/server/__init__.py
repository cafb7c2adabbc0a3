"""The server around the scheduling core (upstream `cmd/kube-scheduler/app`): the composition
root (`app`), HTTPS serving of health, metrics, configz and the pods held at Permit
(`serving`, `waiting_endpoint`), delegated authentication and authorization (`auth`), the
serving certificate (`certs`) and logging set-up (`logs`).
"""
