/** Store-thread tasks of tenancy administration: environments, app updates (part of StoreTasks). */
export interface AdminTasks {}
