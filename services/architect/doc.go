package architect
