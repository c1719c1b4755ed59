/** Store-thread tasks of scores, score configs and comments (part of StoreTasks). */
export interface ScoreTasks {}
