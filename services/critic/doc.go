package critic
