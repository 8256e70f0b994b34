package org.openbox.controller.obi;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.stereotype.Component;

/**
 * The controller's threads for OBIs: the keep-alive deadline scheduler ({@code obi-deadlines-N})
 * and the single deployment thread ({@code obi-setup-1}) on which connection set-up and graph
 * deployment run, so Hello is answered at once and an OBI's pushes stay in order. Both are
 * Spring's pools, sized by {@link ObiThreadsProperties}, and stop with the context. They are
 * held here rather than exposed as executor beans so that Spring Boot's own application
 * executor stays as it is.
 */
@Component
public class ObiThreads implements DisposableBean {

    private final ThreadPoolTaskScheduler deadlines = new ThreadPoolTaskScheduler();
    private final ThreadPoolTaskExecutor deployment = new ThreadPoolTaskExecutor();

    public ObiThreads(ObiThreadsProperties props) {
        deadlines.setPoolSize(props.deadlineThreads());
        deadlines.setThreadNamePrefix("obi-deadlines-");
        deadlines.setDaemon(true);
        deadlines.setRemoveOnCancelPolicy(true);
        deadlines.initialize();
        deployment.setCorePoolSize(1);
        deployment.setMaxPoolSize(1);
        deployment.setQueueCapacity(props.deploymentQueue());
        deployment.setThreadNamePrefix("obi-setup-");
        deployment.setDaemon(true);
        deployment.initialize();
    }

    /** Runs the keep-alive deadline checks. */
    public TaskScheduler deadlines() {
        return deadlines;
    }

    /** Runs connection set-up and graph deployment, one task at a time in submission order. */
    public TaskExecutor deployment() {
        return deployment;
    }

    @Override
    public void destroy() {
        deadlines.shutdown();
        deployment.shutdown();
    }
}
