package recorder
